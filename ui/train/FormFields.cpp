#include "ui/train/FormFields.h"

#include "common/training_job.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>

#include <algorithm>
#include <climits>
#include <cmath>

namespace FormFields {
namespace {

using tuneframe::common::JobFieldLimit;
using tuneframe::common::JobFieldType;

int clampedToInt(double value) {
    return static_cast<int>(std::clamp(value, double(INT_MIN), double(INT_MAX)));
}

} // namespace

QSpinBox* spinBox(QWidget* parent, const char* objectName, int minimum, int maximum) {
    auto* box = new QSpinBox(parent);
    box->setObjectName(QString::fromLatin1(objectName));
    box->setRange(minimum, maximum);
    return box;
}

QSpinBox* jobSpinBox(QWidget* parent, const char* objectName, const char* field) {
    const JobFieldLimit& limit = tuneframe::common::job_field_limit(field);
    if (limit.type == JobFieldType::Integer)
        return spinBox(parent, objectName, clampedToInt(double(limit.min_integer)),
                       clampedToInt(double(limit.max_integer)));
    // A whole-number box over a numeric range: (0, 1e6] is 1 to 1e6.
    double minimum = std::ceil(limit.minimum);
    if (limit.minimum_excluded && minimum == limit.minimum)
        minimum += 1;
    return spinBox(parent, objectName, clampedToInt(minimum),
                   clampedToInt(std::floor(limit.maximum)));
}

QSpinBox* jobSpinBox(QWidget* parent, const char* objectName, const char* field, int minimum) {
    QSpinBox* box = jobSpinBox(parent, objectName, field);
    box->setMinimum(minimum);
    return box;
}

void setJobRange(QDoubleSpinBox* box, const char* field) {
    const JobFieldLimit& limit = tuneframe::common::job_field_limit(field);
    box->setRange(limit.minimum, limit.maximum);
}

QStringList jobChoices(const char* field) {
    QStringList choices;
    for (const std::string& choice : tuneframe::common::job_field_limit(field).choices)
        choices.append(QString::fromStdString(choice));
    return choices;
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
