#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

// What `tuneframe-engine estimate` says a job needs, per process: each phase's total and its
// parts on the device, and what it keeps in host memory (offloaded blocks, a parked expert, a
// CPU-offloaded optimizer's state). The studio compares the peaks with the chosen devices and
// the computer's free memory before a run starts.
struct MemoryEstimate {
    Q_DECLARE_TR_FUNCTIONS(MemoryEstimate)

public:
    struct Part {
        QString name;
        qint64 bytes = 0;
    };
    struct Phase {
        QString name; // prepare | train | validation
        qint64 totalBytes = 0;
        bool skipped = false;
        QVector<Part> parts;
    };

    int processes = 1;
    QVector<Phase> phases;
    QVector<Phase> hostPhases; // host memory beyond the device's; empty when it keeps none
    int swappedBlocks = 0;     // blocks kept in host memory (memory.blocks_to_swap)

    // The `done` summary of `estimate`; nullopt when it is not one.
    static std::optional<MemoryEstimate> fromSummary(const QJsonObject& summary);
    // The phase that needs the most, or nullptr when there is none.
    const Phase* largestPhase() const;
    // The host phase that needs the most, or nullptr when the job keeps nothing there.
    const Phase* largestHostPhase() const;
    // "Prepare", "Train", "Validation" in the interface language.
    static QString phaseTitle(const QString& name);
    // The engine names parts in English ("optimizer state"); this is their interface name.
    static QString partTitle(const QString& name);
};
