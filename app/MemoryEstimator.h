#pragma once

#include "app/MemoryEstimate.h"

#include <QJsonObject>
#include <QObject>
#include <QTemporaryDir>

class EngineCommand;

// Asks the engine for a job's memory estimate (`estimate --job … --processes N`) in the
// background. A new request replaces one still running, so a form can ask on every edit.
class MemoryEstimator : public QObject {
    Q_OBJECT

public:
    explicit MemoryEstimator(const QString& enginePath, QObject* parent = nullptr);
    ~MemoryEstimator() override;

    void request(const QJsonObject& job, int processes);
    // For the next request.
    void setEnginePath(const QString& enginePath);

signals:
    void estimated(const MemoryEstimate& estimate);
    void failed(const QString& message);

private:
    EngineCommand* m_command;
    QTemporaryDir m_folder;
};
