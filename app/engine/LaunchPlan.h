#pragma once

#include "common/launch_spec.h"

#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

// Which processes train a run: one engine on the job's device, one worker per chosen GPU, or N
// CPU ranks (data parallel on a machine without GPUs), on this machine alone or on several
// machines that each start as many (this one is machine 0, whose address the others meet at).
// Kept beside the job as <run>/launch.json, so Continue and a reattaching studio start the same
// workers. The studio's face of common::LaunchSpec, which the engine's queue runner reads too.
class LaunchPlan {
    Q_DECLARE_TR_FUNCTIONS(LaunchPlan)

public:
    static const QString kFileName;

    static LaunchPlan singleProcess() { return {}; }
    static LaunchPlan gpus(const QVector<int>& indices);
    static LaunchPlan cpuRanks(int count);
    // The same processes on each of `count` machines, meeting at this one's `address`:`port`.
    LaunchPlan onMachines(int count, const QString& address, int port) const;
    // This machine's first address other machines can reach (IPv4, not loopback), or "".
    static QString thisMachineAddress();

    QVector<int> gpuIndices() const;
    int cpuRankCount() const { return m_spec.cpu_ranks; }
    // Processes that train together on this machine.
    int processCount() const { return m_spec.process_count(); }
    int machineCount() const { return m_spec.machines; }
    QString masterAddress() const { return QString::fromStdString(m_spec.master_addr); }
    int masterPort() const { return m_spec.master_port; }
    // Processes on every machine together; 1 means the plain `train` command.
    int worldSize() const { return m_spec.world_size(); }

    // The engine's arguments for `command` on jobFile: `train` becomes `launch … -- train`
    // when several processes train, and `run` (prepare, then train) gets --gpus or
    // --cpu-ranks to start that itself; `prepare` always runs alone.
    QStringList engineArguments(const QString& command, const QString& jobFile) const;
    // What machine `machine` (1 to machineCount() - 1) runs: `run` with its --node-rank, which
    // waits for machine 0 to prepare the dataset in the shared run folder.
    QStringList machineArguments(int machine, const QString& jobFile) const;

    QJsonObject toJson() const;
    // A missing file is the single-process plan; a broken one is an error naming the file.
    static LaunchPlan load(const QString& runFolder, QString* error);
    bool save(const QString& runFolder, QString* error) const;

    bool operator==(const LaunchPlan& other) const { return m_spec == other.m_spec; }

private:
    // --gpus or --cpu-ranks, and the machines' flags for `node`.
    QStringList processArguments(int node) const;

    tuneframe::common::LaunchSpec m_spec;
};
