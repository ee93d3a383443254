#pragma once

#include "app/engine/LaunchPlan.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;

// After a run on several machines is started or queued here (machine 0): the command each
// other machine runs to join it, ready to copy. The studio starts nothing on other machines.
class OtherMachinesDialog : public QDialog {
    Q_OBJECT

public:
    OtherMachinesDialog(const QString& runName, const LaunchPlan& plan, const QString& jobFile,
                        QWidget* parent = nullptr);

    // One line per other machine, for a shell.
    QString commands() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QString m_runName;
    LaunchPlan m_plan;
    QLabel* m_explanation;
    QPlainTextEdit* m_commands;
    QPushButton* m_copyButton;
    QPushButton* m_closeButton;
};
