#include "ui/dataset/ClipTableDelegate.h"

#include "app/dataset/ClipRecord.h"
#include "app/dataset/ClipTableModel.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>

ClipTableDelegate::ClipTableDelegate(QObject* parent)
    : QStyledItemDelegate(parent) {}

QWidget* ClipTableDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                                         const QModelIndex& index) const {
    switch (index.column()) {
    case ClipTableModel::StatusColumn: {
        auto* box = new QComboBox(parent);
        for (const ClipStatus status :
             {ClipStatus::NeedsReview, ClipStatus::Accepted, ClipStatus::Rejected})
            box->addItem(ClipRecord::statusText(status), static_cast<int>(status));
        return box;
    }
    case ClipTableModel::RatingColumn: {
        auto* box = new QSpinBox(parent);
        box->setRange(0, ClipRecord::kMaxRating);
        return box;
    }
    case ClipTableModel::CaptionColumn:
        return new QLineEdit(parent);
    default:
        return QStyledItemDelegate::createEditor(parent, option, index);
    }
}

void ClipTableDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
    const QVariant value = index.data(Qt::EditRole);
    if (auto* box = qobject_cast<QComboBox*>(editor)) {
        box->setCurrentIndex(qMax(0, box->findData(value.toInt())));
        return;
    }
    if (auto* box = qobject_cast<QSpinBox*>(editor)) {
        box->setValue(value.toInt());
        return;
    }
    if (auto* line = qobject_cast<QLineEdit*>(editor)) {
        line->setText(value.toString());
        return;
    }
    QStyledItemDelegate::setEditorData(editor, index);
}

void ClipTableDelegate::setModelData(QWidget* editor, QAbstractItemModel* model,
                                     const QModelIndex& index) const {
    if (auto* box = qobject_cast<QComboBox*>(editor)) {
        model->setData(index, box->currentData(), Qt::EditRole);
        return;
    }
    if (auto* box = qobject_cast<QSpinBox*>(editor)) {
        box->interpretText();
        model->setData(index, box->value(), Qt::EditRole);
        return;
    }
    if (auto* line = qobject_cast<QLineEdit*>(editor)) {
        if (line->text() != index.data(Qt::EditRole).toString())
            model->setData(index, line->text(), Qt::EditRole);
        return;
    }
    QStyledItemDelegate::setModelData(editor, model, index);
}
