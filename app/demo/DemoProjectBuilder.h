#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

class DemoClipWriter;
class EngineCommand;

// Fills a project folder with the demo content, in the background:
//   <project>/demo-clips/NN-name.mp4 + NN-name.txt   the DemoClipCatalog clips and captions
//   <project>/models/cogvideox-tiny-demo/             `tuneframe-engine init-model --arch
//                                                     cogvideox-tiny-demo`, a complete pipeline,
//                                                     whose VAE `tuneframe-engine demo-vae` then
//                                                     replaces by the demo's (scaled to the clips)
//   <project>/models/wan2.1-tiny/                     `init-model --arch wan2.1-tiny`: the tiny
//                                                     Wan 2.1 pipeline the Wan demo preset trains
//                                                     (its VAE random: demo-vae is CogVideoX's)
// A random VAE decodes anything into coloured noise, so however well the demo trains, its
// validation videos would show nothing; the demo's VAE codes block colours exactly, so they
// show the clips as the transformer learns them. The transformer is the tiny one made wide
// enough to learn to denoise (engine/models/cogvideox/architectures.cpp); demo projects from
// before it keep their models/cogvideox-tiny, and their runs, beside it.
// The model is written by the engine into a hidden staging folder next to its final place and
// renamed there once complete, so a failed or cancelled build never leaves half a model behind;
// a complete model from an earlier build is kept (one without the demo's VAE, written by hand
// with init-model, gets it in place). Importing the clips into the project database
// is the caller's business, from clipFiles().
class DemoProjectBuilder : public QObject {
    Q_OBJECT

public:
    enum class State { None, WritingClips, CreatingModel, MakingVae, Succeeded, Failed, Cancelled };
    Q_ENUM(State)

    static const QString kClipsFolderName;
    static const QString kModelsFolderName;
    static const QString kModelArchitecture;
    // The second demo model: Wan 2.1, trained by flow matching, with the Wan demo preset.
    static const QString kWanModelArchitecture;
    // The preset the demo project's Train page opens on: a full fine-tune of the demo model on a
    // CPU. A LoRA on the demo's random base learns the clips' colours, not their shapes: the
    // base has to change in full rank before it can draw anything, which no pretrained base
    // asks of a real LoRA.
    static const QString kTrainingPresetId;
    // The preset that trains the Wan demo model on a CPU.
    static const QString kWanTrainingPresetId;
    // The engine's stderr lines quoted when it fails: its error and hint, with some context.
    static constexpr int kEngineLinesQuoted = 8;
    // The clip size demo-vae measures the latent scale at: the CPU demo preset's.
    static constexpr int kVaeFrames = 9;
    static constexpr int kVaeHeight = 64;
    static constexpr int kVaeWidth = 96;
    // The share of the progress bar the VAE takes (each clip and each model take one unit).
    static constexpr int kVaeProgressUnits = 8;

    // enginePath: the tuneframe-engine executable.
    DemoProjectBuilder(const QString& projectFolder, const QString& enginePath,
                       QObject* parent = nullptr);
    // Cancels a build in progress and waits for its thread and the engine to stop.
    ~DemoProjectBuilder() override;

    // Starts a build; ignored while one runs. Ends in buildSucceeded or buildFailed.
    void start();
    // Stops the build; no further signal follows.
    void cancel();

    State state() const;
    bool isRunning() const;
    QString projectFolder() const;
    QString enginePath() const;
    QString clipsFolder() const;
    QString modelFolder() const;
    QString wanModelFolder() const;
    // The videos written, in catalog order; complete after buildSucceeded.
    QStringList clipFiles() const;
    QString errorMessage() const;
    int progressDone() const;
    int progressTotal() const;

    // Whether folder holds a complete cogvideox-tiny-demo pipeline (model_index.json and every
    // component folder) with the demo's VAE.
    static bool isCompleteModel(const QString& folder);
    // Whether folder holds model_index.json and every component folder (the Wan demo model).
    static bool isCompletePipeline(const QString& folder);
    // The record demo-vae leaves in the model's vae/ folder.
    static QString demoVaeRecord(const QString& modelFolder);

signals:
    void progressChanged(int done, int total, const QString& step);
    void buildSucceeded();
    void buildFailed(const QString& message);

    // Internal: a queued call into the writer's thread.
    void writeClipsRequested(const QString& folder, quint64 runId);

private slots:
    void onClipWritten(int written, int total, const QString& videoPath, quint64 runId);
    void onClipsWritten(const QStringList& videoPaths, quint64 runId);
    void onClipsFailed(const QString& message, quint64 runId);
    void onEngineFinished(int exitCode, QProcess::ExitStatus exitStatus);
    void onEngineErrorOccurred(QProcess::ProcessError error);

private:
    QString stagingFolder() const;
    QString stagingFolder(const QString& architecture) const;
    void startModel();
    void finishModel();
    void startWanModel();
    void finishWanModel();
    // Runs init-model for `architecture` into its staging folder.
    void startInitModel(const QString& architecture);
    void fail(const QString& message);
    void succeed();
    void setProgress(int done, const QString& step);
    void stopEngine();
    void startDemoVae(const QString& folder);
    void onDemoVaeProgressed(qint64 done, qint64 total);
    void onDemoVaeWritten();
    void onDemoVaeFailed(const QString& message, const QString& hint);
    static bool hasAllComponents(const QString& folder);
    QString engineOutputTail();

    QString m_projectFolder;
    QString m_enginePath;
    QThread m_thread;
    DemoClipWriter* m_writer; // lives on m_thread, which deletes it when it finishes
    QProcess* m_engine = nullptr;
    QString m_engineArchitecture; // what m_engine's init-model writes
    EngineCommand* m_demoVae = nullptr;
    // The model getting the demo's VAE: the staging folder, or an old model's own place.
    QString m_demoVaeFolder;
    State m_state = State::None;
    // Tells this build's writer signals from those of a cancelled one still on their way.
    quint64 m_runId = 0;
    QStringList m_clipFiles;
    QString m_errorMessage;
    int m_progressDone = 0;
    int m_progressTotal = 0;
};
