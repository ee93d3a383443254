#pragma once

#include <QString>
#include <QStringList>

class QComboBox;
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
// Sized by a few characters rather than its longest item (the popup still shows it whole), so a
// long preset or device name cannot make the form wider than its column.
void letShrink(QComboBox* box);
// One item per job value, the value as its data (the text is set in retranslateUi()).
QComboBox* valueCombo(QWidget* parent, const char* objectName, const QStringList& values);
// Selects the item whose data is `value`; the first for a value it does not have.
void selectValue(QComboBox* box, const QString& value);

} // namespace FormFields
