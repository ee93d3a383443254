#pragma once

#include "app/runs/TensorBoardCommand.h"

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;

// "Open in TensorBoard…": the exact `tensorboard --logdir` command for the run, to copy, and a
// Start button when TensorBoard is installed that launches it and opens its page.
class TensorBoardDialog : public QDialog {
    Q_OBJECT

public:
    // `program`: the tensorboard executable to start; empty hides Start.
    TensorBoardDialog(const QString& runFolder, const QString& program, QWidget* parent = nullptr);

    QString commandLine() const;

signals:
    void started(const QString& logDirectory);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void onCopy();
    void onStart();

    TensorBoardCommand m_command;
    QString m_program;
    QLabel* m_explanation;
    QLineEdit* m_commandEdit;
    QLabel* m_status;
    QPushButton* m_copyButton;
    QPushButton* m_startButton;
    QPushButton* m_closeButton;
};
