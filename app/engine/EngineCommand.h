#pragma once

#include "app/engine/EngineEvent.h"

#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QStringList>

// One short engine command (`export`, `sample`) run as a child process to its end: its stdout
// events are read line by line as they come, and the end is reported once, with the `done`
// summary or the engine's error message and hint. Nothing here waits on the process.
class EngineCommand : public QObject {
    Q_OBJECT

public:
    EngineCommand(const QString& enginePath, QObject* parent = nullptr);
    ~EngineCommand() override;

    void start(const QStringList& arguments);
    // For the next start.
    void setEnginePath(const QString& enginePath);
    // Kills the engine; no signal follows.
    void cancel();
    bool isRunning() const;

    // The job field the last failure was about (the error event's `field`), or empty.
    QString errorField() const { return m_errorField; }

signals:
    void eventReceived(const EngineEvent& event);
    void progressed(qint64 done, qint64 total);
    void succeeded(const QJsonObject& summary);
    void failed(const QString& message, const QString& hint);

private:
    void onOutput();
    void onFinished(int exitCode, QProcess::ExitStatus status);

    QString m_enginePath;
    QProcess* m_process = nullptr;
    QByteArray m_pending;
    QJsonObject m_summary;
    bool m_done = false;
    QString m_errorMessage;
    QString m_errorHint;
    QString m_errorField;
    QStringList m_stderrTail;
};
