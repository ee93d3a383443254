#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

class DemoClipWriter;

// Fills a project folder with the demo content, in the background:
//   <project>/demo-clips/NN-name.mp4 + NN-name.txt   the DemoClipCatalog clips and captions
//   <project>/models/cogvideox-tiny/                  `tuneframe-engine init-model --arch
//                                                     cogvideox-tiny`, a complete pipeline
// The model is written by the engine into a hidden staging folder next to its final place and
// renamed there once complete, so a failed or cancelled build never leaves half a model behind;
// a complete model from an earlier build is kept. Importing the clips into the project database
// is the caller's business, from clipFiles().
class DemoProjectBuilder : public QObject {
    Q_OBJECT

public:
    enum class State { None, WritingClips, CreatingModel, Succeeded, Failed, Cancelled };
    Q_ENUM(State)

    static const QString kClipsFolderName;
    static const QString kModelsFolderName;
    static const QString kModelArchitecture;
    // The preset the demo project's Train page opens on: it trains the tiny model on a CPU.
    static const QString kTrainingPresetId;
    // The engine's stderr lines quoted when it fails: its error and hint, with some context.
    static constexpr int kEngineLinesQuoted = 8;

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
    // The videos written, in catalog order; complete after buildSucceeded.
    QStringList clipFiles() const;
    QString errorMessage() const;
    int progressDone() const;
    int progressTotal() const;

    // Whether folder holds a complete cogvideox-tiny pipeline (model_index.json and every
    // component folder).
    static bool isCompleteModel(const QString& folder);

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
    void startModel();
    void finishModel();
    void fail(const QString& message);
    void succeed();
    void setProgress(int done, const QString& step);
    void stopEngine();
    QString engineOutputTail();

    QString m_projectFolder;
    QString m_enginePath;
    QThread m_thread;
    DemoClipWriter* m_writer; // lives on m_thread, which deletes it when it finishes
    QProcess* m_engine = nullptr;
    State m_state = State::None;
    // Tells this build's writer signals from those of a cancelled one still on their way.
    quint64 m_runId = 0;
    QStringList m_clipFiles;
    QString m_errorMessage;
    int m_progressDone = 0;
    int m_progressTotal = 0;
};
