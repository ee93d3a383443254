#pragma once

#include "app/runs/TrainingHistory.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

// The memory table cogvideox-factory publishes for its runs: per run and rank, the peak
// allocated memory (on the CPU: the peak resident set) before training, before validation,
// after validation and after testing (the end of the run). Validation phases repeat; a column
// shows the largest of them. One table can hold several runs (a sweep's comparison).
class RunMemoryTable {
    Q_DECLARE_TR_FUNCTIONS(RunMemoryTable)

public:
    static const QStringList kPhases; // the engine's phase names, in column order

    struct Row {
        QString run;
        int rank = 0;
        QVector<std::optional<qint64>> peakBytes; // one per phase; nullopt: not reported
    };

    void append(const QString& run, const QVector<MemoryPhaseRecord>& phases);
    const QVector<Row>& rows() const { return m_rows; }
    bool isEmpty() const { return m_rows.isEmpty(); }

    static QString phaseTitle(const QString& phase);
    // GiB with two decimals, "–" for a phase the run did not reach.
    static QString cellText(const std::optional<qint64>& bytes);
    QString markdown() const;
    QString csv() const;

private:
    QVector<Row> m_rows;
};
