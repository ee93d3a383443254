#pragma once

#include <QStyledItemDelegate>

// Editors for the clip table's editable cells: a list of the three statuses, a 0–5 spin box
// for the rating, and a line edit for the caption (which the model stores through
// CaptionHistory, so a table edit is undoable like any other).
class ClipTableDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    explicit ClipTableDelegate(QObject* parent = nullptr);

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override;
    void setEditorData(QWidget* editor, const QModelIndex& index) const override;
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override;
};
