#include "app/runs/RunHistoryModel.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

RunHistoryModel::RunHistoryModel(QObject* parent)
    : QAbstractTableModel(parent) {}

void RunHistoryModel::setRows(const QVector<RunHistoryRow>& rows) {
    beginResetModel();
    m_rows = rows;
    endResetModel();
}

void RunHistoryModel::upsertRow(const RunHistoryRow& row) {
    const int existing = rowOf(row.id);
    if (existing >= 0) {
        m_rows[existing] = row;
        rowChanged(existing);
        return;
    }
    beginInsertRows(QModelIndex(), 0, 0);
    m_rows.prepend(row);
    endInsertRows();
}

void RunHistoryModel::setState(qint64 runId, RunState state) {
    const int row = rowOf(runId);
    if (row < 0 || m_rows[row].state == state)
        return;
    m_rows[row].state = state;
    rowChanged(row);
}

void RunHistoryModel::setProgress(qint64 runId, qint64 step, double loss) {
    const int row = rowOf(runId);
    if (row < 0)
        return;
    m_rows[row].step = step;
    if (std::isfinite(loss))
        m_rows[row].lastLoss = loss;
    rowChanged(row);
}

int RunHistoryModel::rowOf(qint64 runId) const {
    for (int row = 0; row < m_rows.size(); ++row) {
        if (m_rows.at(row).id == runId)
            return row;
    }
    return -1;
}

RunHistoryRow RunHistoryModel::rowAt(int row) const {
    return m_rows.value(row);
}

bool RunHistoryModel::hasSweeps() const {
    return std::any_of(m_rows.cbegin(), m_rows.cend(),
                       [](const RunHistoryRow& run) { return !run.sweepName.isEmpty(); });
}

QString RunHistoryModel::startedText(const QDateTime& started, const QDate& today) {
    if (started.date() == today)
        return QLocale().toString(started.time(), QLocale::ShortFormat);
    return QLocale().toString(started.date(), QLocale::ShortFormat);
}

void RunHistoryModel::retranslate() {
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, ColumnCount - 1));
}

int RunHistoryModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunHistoryModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunHistoryModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const RunHistoryRow& run = m_rows.at(index.row());
    if (role == kRunIdRole)
        return run.id;
    if (role == Qt::TextAlignmentRole &&
        (index.column() == StepColumn || index.column() == LossColumn))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case NameColumn:
        return run.name;
    case StateColumn:
        return RunStateText::display(run.state);
    case StepColumn:
        return run.maxSteps > 0 ? tr("%1 / %2").arg(run.step).arg(run.maxSteps)
                                : QString::number(run.step);
    case LossColumn:
        return std::isfinite(run.lastLoss) ? QLocale().toString(run.lastLoss, 'g', 4) : QString();
    case PresetColumn:
        return run.presetName;
    case SweepColumn:
        return run.sweepName;
    case CreatedColumn: {
        const QDateTime started = run.createdUtc.toLocalTime();
        return role == Qt::ToolTipRole ? QLocale().toString(started, QLocale::ShortFormat)
                                       : startedText(started, QDate::currentDate());
    }
    default:
        return {};
    }
}

QVariant RunHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Run");
    case StateColumn:
        return tr("State");
    case StepColumn:
        return tr("Step");
    case LossColumn:
        return tr("Loss");
    case PresetColumn:
        return tr("Preset");
    case SweepColumn:
        return tr("Sweep");
    case CreatedColumn:
        return tr("Started");
    default:
        return {};
    }
}

void RunHistoryModel::rowChanged(int row) {
    emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
}
