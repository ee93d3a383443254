#pragma once

#include <QString>
#include <QStringList>

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QWidget;

// The Train form's fields as its parts build them (the new-run form, its plan rows and its
// Advanced section): named for tests, sized to fit a narrow column, combo boxes keyed by the
// job's own values.
namespace FormFields {

// The most processes one machine may train with from the form (CPU ranks, and each size of a
// hybrid plan).
inline constexpr int kMostProcesses = 16;

QSpinBox* spinBox(QWidget* parent, const char* objectName, int minimum, int maximum);
// A spin box over a job field's range from the job's table of limits (common/training_job.h),
// as the engine reads it, within int; `minimum` overrides the table's lower end where the form
// gives a value of its own below it a meaning (0 for "all blocks").
QSpinBox* jobSpinBox(QWidget* parent, const char* objectName, const char* field);
QSpinBox* jobSpinBox(QWidget* parent, const char* objectName, const char* field, int minimum);
// The job field's range from the table, for a spin box of fractions.
void setJobRange(QDoubleSpinBox* box, const char* field);
// The values the job field takes, in the table's order (a combo box's items).
QStringList jobChoices(const char* field);
// Sized by a few characters rather than its longest item (the popup still shows it whole), so a
// long preset or device name cannot make the form wider than its column.
void letShrink(QComboBox* box);
// One item per job value, the value as its data (the text is set in retranslateUi()).
QComboBox* valueCombo(QWidget* parent, const char* objectName, const QStringList& values);
// Selects the item whose data is `value`; the first for a value it does not have.
void selectValue(QComboBox* box, const QString& value);

} // namespace FormFields
