#pragma once

#include "app/jobs/MemoryEstimate.h"

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
    // `field`: the job field the engine refused (as "lora.rank"), or empty when the failure is
    // not about one field.
    void failed(const QString& message, const QString& field);

private:
    EngineCommand* m_command;
    QTemporaryDir m_folder;
};
