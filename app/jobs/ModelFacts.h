#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <optional>

// What a model folder holds, as `tuneframe-engine inspect --json --summary` reports it (the
// studio never reads weights or links LibTorch): its family, variant, tasks, size, stored dtype
// and experts, and what follows from them for a job: which job fields apply, the frame counts
// and picture sizes its VAE and patches take. A plain value the Train form, the bucket preview,
// the Sample page and the export dialog read alike.
class ModelFacts {
    Q_DECLARE_TR_FUNCTIONS(ModelFacts)

public:
    QString folder;
    QString family;      // the engine's name: "cogvideox", "wan"
    QString name;        // the architecture the engine recognised ("wan2.1-t2v-14b"), or "custom"
    QString description; // the engine's English description of the transformer
    QString transformerClass; // diffusers' class of the transformer: "WanTransformer3DModel"
    QString variant;          // "t2v", "i2v", "ti2v"
    QStringList tasks;        // the job tasks it trains: "t2v", "i2v"
    qint64 parameters = 0;    // of one transformer (one expert)
    QString storedDtype;      // the transformer's weights on disk: "BF16", "F32", "F8_E4M3"
    int experts = 1;
    std::optional<double> boundaryRatio; // two experts: the high-noise one from t >= this x 1000
    int layers = 0;
    int heads = 0;
    int width = 0;
    int inChannels = 0;
    int latentChannels = 0;
    // The release's own video size (inspect's memory estimate is made at it).
    int sampleFrames = 0;
    int sampleHeight = 0;
    int sampleWidth = 0;

    // The facts in inspect's JSON (a pipeline folder with its transformer), or nullopt with
    // error naming what is missing.
    static std::optional<ModelFacts> fromInspection(const QString& folder,
                                                    const QJsonObject& inspection, QString* error);

    // Trained by flow matching: the job's flow_matching fields (shift, timestep density, loss
    // weighting) apply. Wan; CogVideoX predicts v on the DDPM schedule.
    bool trainsByFlowMatching() const;
    // Two transformers switched at boundaryRatio (Wan 2.2 A14B): the expert choice applies.
    bool hasTwoExperts() const { return experts > 1; }
    bool hasTask(const QString& task) const { return tasks.contains(task); }
    // The image-to-video task only (the text-to-video task is not there to choose).
    bool isImageToVideoOnly() const { return tasks == QStringList{QStringLiteral("i2v")}; }
    // Training buckets' frame counts are step k + 1 (the VAE's temporal scale: 4).
    int frameStep() const { return 4; }
    // Picture sides are multiples of this: the VAE's spatial scale times the patch (16; Wan 2.2
    // TI2V-5B's 16x VAE makes it 32), as engine/models/*/…_model_folder.cpp check them.
    int sizeMultiple() const;
    // The nearest frame count the model takes (k x step + 1, at least 1).
    int snappedFrames(int frames) const;
    // The nearest multiple of sizeMultiple(), at least one of it.
    int snappedSide(int pixels) const;
    // Validation and sampling: the samplers `validation.sampler` and `sample --scheduler` take,
    // the family's default first.
    QStringList samplers() const;
    // Adapter formats `export --format` takes for a LoRA run of this model, besides merged and
    // pipeline (which every run has): diffusers and the family's kohya-style layouts.
    QStringList adapterFormats() const;

    // "Wan 2.1 text-to-video 14B · 14.3 B parameters · BF16 · text-to-video": one line for a
    // label, translated, the engine's description kept as it is.
    QString summaryText() const;
    // The experts with their windows, e.g. "two experts: high noise from t = 875, low noise
    // below"; empty for one transformer.
    QString expertsText() const;
    // "text-to-video and image-to-video".
    QString tasksText() const;
    bool operator==(const ModelFacts& other) const;
    bool operator!=(const ModelFacts& other) const { return !(*this == other); }
};

Q_DECLARE_METATYPE(ModelFacts)
