#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>

class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;
class QWidget;

// The new-run form's parallel-plan rows, shown when several processes train: the plan (data
// parallel, ZeRO-1, ZeRO-2 or hybrid) and, for a hybrid plan, its sequence-parallel,
// tensor-parallel and pipeline sizes and how its data-parallel replicas shard the optimizer.
// The rows live in the form's own layout, so their labels line up with the form's; this object
// fills them from a job, reads them back, shows the rows the process count calls for, and
// checks that the sizes divide it.
class ParallelPlanRows : public QObject {
    Q_OBJECT

public:
    // Appends the five rows to `form`; their widgets are children of `parent`.
    ParallelPlanRows(QWidget* parent, QFormLayout* form);

    // Shows a job's "parallel" object; fields it lacks show one process's defaults.
    void setParallel(const QJsonObject& parallel);
    // The job's "parallel" object as the rows set it (sizes of 1 unless the plan is hybrid).
    QJsonObject parallel() const;
    // The plan row shows for several processes, the hybrid rows for a hybrid plan of them.
    void setProcessCount(int processes);
    // Why `processes` cannot be split as a hybrid plan asks, or "" when they can.
    QString inputError(int processes) const;
    // The widget that sets a job field ("parallel.tp_size"), or null for one not here.
    QWidget* fieldWidget(const QString& jobField) const;
    void retranslateUi();

signals:
    void edited();

private:
    bool hybrid() const;
    int groupSize() const;
    void updateVisibility();

    QFormLayout* m_form;
    QList<QLabel*> m_labels;
    QComboBox* m_planCombo;
    QSpinBox* m_spSizeSpin;
    QSpinBox* m_tpSizeSpin;
    QSpinBox* m_ppSizeSpin;
    QComboBox* m_zeroStageCombo;
    int m_processes = 1;
};
