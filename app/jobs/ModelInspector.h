#pragma once

#include "app/jobs/ModelFacts.h"

#include <QHash>
#include <QObject>
#include <QProcess>
#include <QString>

#include <optional>

// Reads what a model folder is through the engine (`inspect --json --summary FOLDER`, configs
// and weight headers only, well under a second) in a child process, never on the caller's
// thread. A new request replaces one still running; answers are kept per folder until its
// configs change, so going back to a folder answers at once (still through the event loop).
class ModelInspector : public QObject {
    Q_OBJECT

public:
    explicit ModelInspector(const QString& enginePath, QObject* parent = nullptr);
    ~ModelInspector() override;

    void inspect(const QString& folder);
    // For the next request.
    void setEnginePath(const QString& enginePath);
    // Stops the request in flight; nothing follows it.
    void cancel();
    bool isInspecting() const { return m_process != nullptr; } // an engine process runs
    // Answers the request in flight now (inspected or failed is emitted before this returns),
    // waiting at most msecs for the engine; for callers that must decide at once, such as the
    // Train button. False when no answer came in time (the request goes on).
    bool waitForAnswer(int msecs);

signals:
    void inspected(const ModelFacts& facts);
    // message says what the engine found wrong with the folder, and what to do.
    void failed(const QString& folder, const QString& message);

private:
    struct Answer {
        QString signature;
        ModelFacts facts;
    };

    // The modification times of the files that say what the folder is: a changed one is asked
    // about again.
    static QString signatureOf(const QString& folder);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void emitQueued();

    QString m_enginePath;
    QProcess* m_process = nullptr;
    QString m_folder; // of the request in flight
    QHash<QString, Answer> m_answers;
    std::optional<ModelFacts> m_queued; // a known answer on its way through the event loop
};
