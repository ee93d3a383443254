#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QProcess;
class QTimer;

// Runs `ENGINE --version` in the background to tell whether a path is a working
// tuneframe-engine, for the Preferences dialog. A new check replaces one still running; one
// that does not answer within kTimeoutMs is killed and reported.
class EngineVersionCheck : public QObject {
    Q_OBJECT

public:
    static constexpr int kTimeoutMs = 15000;

    explicit EngineVersionCheck(QObject* parent = nullptr);
    ~EngineVersionCheck() override;

    void start(const QString& enginePath);
    bool isRunning() const;

signals:
    // version: the engine's own line ("tuneframe-engine 0.4.0").
    void succeeded(const QString& enginePath, const QString& version);
    // message names the path and what went wrong.
    void failed(const QString& enginePath, const QString& message);

private:
    void onFinished();
    void cancel();

    QPointer<QProcess> m_process;
    QTimer* m_timeout;
    QString m_enginePath;
};
