#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QString>
#include <QVector>

#include <optional>

// What `tuneframe-engine estimate` says a job needs, per process: each phase's total and its
// parts. The studio compares the peak with the chosen devices before a run starts.
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

    // The `done` summary of `estimate`; nullopt when it is not one.
    static std::optional<MemoryEstimate> fromSummary(const QJsonObject& summary);
    // The phase that needs the most, or nullptr when there is none.
    const Phase* largestPhase() const;
    // "Prepare", "Train", "Validation" in the interface language.
    static QString phaseTitle(const QString& name);
    // The engine names parts in English ("optimizer state"); this is their interface name.
    static QString partTitle(const QString& name);
};
