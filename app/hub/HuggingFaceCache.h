#pragma once

#include <QCoreApplication>
#include <QProcessEnvironment>
#include <QString>
#include <QVector>

// Video pipelines the engine trains (CogVideoX, Wan) that `huggingface-cli download` (or any
// trainer built on huggingface_hub) left in the Hugging Face cache, so the model picker can offer
// them by repo id: HUB/models--Wan-AI--Wan2.1-T2V-1.3B-Diffusers/snapshots/<commit>/
// model_index.json, with the branch or tag that points at each commit in
// HUB/models--.../refs/<name>.
class HuggingFaceCache {
    Q_DECLARE_TR_FUNCTIONS(HuggingFaceCache)

public:
    struct Model {
        QString repoId;   // "Wan-AI/Wan2.1-T2V-1.3B-Diffusers"
        QString revision; // "main", or the commit's first 8 characters when no ref names it
        QString commit;
        QString folder;        // the snapshot: a diffusers pipeline folder
        QString pipelineClass; // model_index.json's _class_name

        // "Wan-AI/Wan2.1-T2V-1.3B-Diffusers (main)"
        QString label() const;
    };

    // Where huggingface_hub keeps repositories: $HF_HUB_CACHE, else $HF_HOME/hub, else
    // $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
    static QString hubFolder(const QProcessEnvironment& environment);
    // Whether model_index.json's _class_name is a pipeline the engine trains: CogVideoX's and
    // Wan's (docs/protocol.md, the job's `model`).
    static bool isTrainablePipeline(const QString& pipelineClass);
    // Every snapshot in hubFolder whose model_index.json names such a pipeline, sorted by repo
    // id, then revision. Unreadable entries are passed over: a cache is shared with other
    // programs, and a half-downloaded snapshot is not an error of ours.
    static QVector<Model> videoPipelines(const QString& hubFolder);
};
