#include "ui/train/FormFields.h"

#include <QComboBox>
#include <QSpinBox>

namespace FormFields {

QSpinBox* spinBox(QWidget* parent, const char* objectName, int minimum, int maximum) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(QString::fromLatin1(objectName));
    box->setRange(minimum, maximum);
    return box;
}

void letShrink(QComboBox* box) {
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
}

QComboBox* valueCombo(QWidget* parent, const char* objectName, const QStringList& values) {
    auto* box = new QComboBox(parent);
    box->setObjectName(QString::fromLatin1(objectName));
    letShrink(box);
    for (const QString& value : values)
        box->addItem(value, value);
    return box;
}

void selectValue(QComboBox* box, const QString& value) {
    const int index = box->findData(value);
    box->setCurrentIndex(index < 0 ? 0 : index);
}

} // namespace FormFields
