#include "ui/captions/CaptionChangeTable.h"

#include "app/captions/CaptionLength.h"

#include <QEvent>
#include <QHeaderView>

namespace {

enum Column { ClipColumn, BeforeColumn, AfterColumn, ColumnCount };

// Bounded, so a caption of megabytes costs the table no more than a short one.
QTableWidgetItem* readOnlyItem(const QString& text) {
    const QString shown = CaptionLength::preview(text);
    auto* item = new QTableWidgetItem(QString(shown).replace(QLatin1Char('\n'), QChar(0x21b5)));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    item->setToolTip(shown);
    return item;
}

} // namespace

CaptionChangeTable::CaptionChangeTable(QWidget* parent)
    : QTableWidget(0, ColumnCount, parent) {
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setAlternatingRowColors(true);
    setWordWrap(false);
    verticalHeader()->hide();
    horizontalHeader()->setSectionResizeMode(ClipColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(BeforeColumn, QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(AfterColumn, QHeaderView::Stretch);
    retranslateUi();
}

void CaptionChangeTable::setChanges(const QVector<CaptionHistory::Change>& changes,
                                    const QHash<qint64, QString>& clipNames) {
    setUpdatesEnabled(false);
    clearContents();
    setRowCount(static_cast<int>(changes.size()));
    for (int row = 0; row < changes.size(); ++row) {
        const CaptionHistory::Change& change = changes.at(row);
        setItem(row, ClipColumn, readOnlyItem(clipNames.value(change.clipId)));
        setItem(row, BeforeColumn, readOnlyItem(change.before));
        setItem(row, AfterColumn, readOnlyItem(change.after));
    }
    setUpdatesEnabled(true);
}

void CaptionChangeTable::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QTableWidget::changeEvent(event);
}

void CaptionChangeTable::retranslateUi() {
    setHorizontalHeaderLabels({tr("Clip"), tr("Before"), tr("After")});
}
