#pragma once

#include "app/runs/RunState.h"

#include <QAbstractTableModel>
#include <QDateTime>
#include <QVector>

#include <limits>

// One line of the run history: what the Train page lists for each run of the project.
struct RunHistoryRow {
    qint64 id = 0;
    QString name;
    QString presetName;
    RunState state = RunState::None;
    QDateTime createdUtc;
    qint64 step = 0;
    qint64 maxSteps = 0;
    double lastLoss = std::numeric_limits<double>::quiet_NaN();
    QString sweepName; // empty: not part of a sweep
};

// The run history as a table (newest first as given), with the run id under Qt::UserRole on
// every cell. Rows update in place as runs move on, so a selection survives.
class RunHistoryModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        StateColumn,
        StepColumn,
        LossColumn,
        PresetColumn,
        SweepColumn,
        CreatedColumn,
        ColumnCount
    };
    static constexpr int kRunIdRole = Qt::UserRole;

    explicit RunHistoryModel(QObject* parent = nullptr);

    void setRows(const QVector<RunHistoryRow>& rows);
    // Adds the run at the top when it is new, otherwise replaces its line.
    void upsertRow(const RunHistoryRow& row);
    void setState(qint64 runId, RunState state);
    void setProgress(qint64 runId, qint64 step, double loss);
    int rowOf(qint64 runId) const;
    RunHistoryRow rowAt(int row) const;
    // Whether any run belongs to a sweep (the view hides the Sweep column otherwise).
    bool hasSweeps() const;
    // "Started" as the narrow list shows it: the time for a run started today, the date for
    // one started before (the tooltip has both).
    static QString startedText(const QDateTime& started, const QDate& today);
    // After a language switch: headers and state names are read again.
    void retranslate();

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    void rowChanged(int row);

    QVector<RunHistoryRow> m_rows;
};
