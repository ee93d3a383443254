#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

// A slim bar for work running in the background (an import, building the demo project): what
// it is doing, how far it got, and a Cancel button. Hidden while nothing runs.
class TaskProgressBar : public QWidget {
    Q_OBJECT

public:
    explicit TaskProgressBar(QWidget* parent = nullptr);

    // Shows the bar, busy until the first progress arrives.
    void start(const QString& text);
    // total 0: amount unknown (a busy indicator).
    void setProgress(int done, int total, const QString& text);
    void finish();
    bool isActive() const;
    QString text() const;

signals:
    void cancelRequested();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();

    QLabel* m_label;
    QProgressBar* m_progress;
    QPushButton* m_cancelButton;
    bool m_active = false;
};
