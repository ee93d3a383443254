#include "ui/dataset/ClipTableView.h"

#include "app/dataset/ClipTableModel.h"
#include "ui/dataset/ClipTableDelegate.h"

#include <QHeaderView>

ClipTableView::ClipTableView(QWidget* parent)
    : QTableView(parent) {
    setItemDelegate(new ClipTableDelegate(this));
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::EditKeyPressed | QAbstractItemView::DoubleClicked);
    setAlternatingRowColors(true);
    setSortingEnabled(true);
    setWordWrap(false);
    setTextElideMode(Qt::ElideRight);
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    verticalHeader()->hide();
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    horizontalHeader()->setHighlightSections(false);
    horizontalHeader()->setSectionsMovable(true);
    horizontalHeader()->setStretchLastSection(false);
    // A model reset rebuilds the header's sections with default sizes.
    connect(horizontalHeader(), &QHeaderView::sectionCountChanged, this,
            [this](int oldCount, int newCount) {
                if (oldCount != newCount)
                    applyColumnLayout();
            });
}

void ClipTableView::setModel(QAbstractItemModel* model) {
    QTableView::setModel(model);
    applyColumnLayout();
}

void ClipTableView::applyColumnLayout() {
    QHeaderView* header = horizontalHeader();
    // A filter model without its source has no columns yet; sizes come when they do.
    if (header->count() != ClipTableModel::ColumnCount)
        return;
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setSectionResizeMode(ClipTableModel::CaptionColumn, QHeaderView::Stretch);
    const int character = fontMetrics().averageCharWidth();
    header->resizeSection(ClipTableModel::NameColumn, 26 * character);
    header->resizeSection(ClipTableModel::StatusColumn, 14 * character);
    header->resizeSection(ClipTableModel::RatingColumn, 9 * character);
    header->resizeSection(ClipTableModel::ResolutionColumn, 11 * character);
    header->resizeSection(ClipTableModel::DurationColumn, 10 * character);
    header->resizeSection(ClipTableModel::FramesColumn, 11 * character);
    header->resizeSection(ClipTableModel::BucketColumn, 22 * character);
    header->resizeSection(ClipTableModel::TagsColumn, 14 * character);
    header->resizeSection(ClipTableModel::ProblemColumn, 12 * character);
}
