#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

// Which processes train a run: one engine on the job's device, one worker per chosen GPU, or N
// CPU ranks (data parallel on a machine without GPUs). Kept beside the job as
// <run>/launch.json, so Continue and a reattaching studio start the same workers.
class LaunchPlan {
    Q_DECLARE_TR_FUNCTIONS(LaunchPlan)

public:
    static const QString kFileName;

    static LaunchPlan singleProcess() { return {}; }
    static LaunchPlan gpus(const QVector<int>& indices);
    static LaunchPlan cpuRanks(int count);

    const QVector<int>& gpuIndices() const { return m_gpus; }
    int cpuRankCount() const { return m_cpuRanks; }
    // Processes that train together; 1 means the plain `train` command.
    int processCount() const;

    // The engine's arguments for `command` on jobFile: `train` becomes `launch … -- train`
    // when several processes train, and `run` (prepare, then train) gets --gpus or
    // --cpu-ranks to start that itself; `prepare` always runs alone.
    QStringList engineArguments(const QString& command, const QString& jobFile) const;

    QJsonObject toJson() const;
    // A missing file is the single-process plan; a broken one is an error naming the file.
    static LaunchPlan load(const QString& runFolder, QString* error);
    bool save(const QString& runFolder, QString* error) const;

    bool operator==(const LaunchPlan& other) const {
        return m_gpus == other.m_gpus && m_cpuRanks == other.m_cpuRanks;
    }

private:
    QVector<int> m_gpus;
    int m_cpuRanks = 0;
};
