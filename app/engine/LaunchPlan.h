#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

// Which processes train a run: one engine on the job's device, one worker per chosen GPU, or N
// CPU ranks (data parallel on a machine without GPUs), on this machine alone or on several
// machines that each start as many (this one is machine 0, whose address the others meet at).
// Kept beside the job as <run>/launch.json, so Continue and a reattaching studio start the same
// workers.
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

    const QVector<int>& gpuIndices() const { return m_gpus; }
    int cpuRankCount() const { return m_cpuRanks; }
    // Processes that train together on this machine.
    int processCount() const;
    int machineCount() const { return m_machines; }
    const QString& masterAddress() const { return m_masterAddress; }
    int masterPort() const { return m_masterPort; }
    // Processes on every machine together; 1 means the plain `train` command.
    int worldSize() const { return processCount() * m_machines; }

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

    bool operator==(const LaunchPlan& other) const {
        return m_gpus == other.m_gpus && m_cpuRanks == other.m_cpuRanks &&
               m_machines == other.m_machines && m_masterAddress == other.m_masterAddress &&
               m_masterPort == other.m_masterPort;
    }

private:
    // --gpus or --cpu-ranks, and the machines' flags for `node`.
    QStringList processArguments(int node) const;

    QVector<int> m_gpus;
    int m_cpuRanks = 0;
    int m_machines = 1;
    QString m_masterAddress;
    int m_masterPort = 0;
};
