#pragma once

#include "app/runs/RunState.h"

#include <QVector>
#include <QWidget>

class QCheckBox;
class QLabel;
class QListWidget;
class QPushButton;

// The queue of runs waiting their turn: their order, and whether the queue moves on after a
// failure. Runs are named by id; the page turns the buttons into queue operations.
class RunQueuePanel : public QWidget {
    Q_OBJECT

public:
    struct Entry {
        qint64 runId = 0;
        QString name;
        RunState state = RunState::None;
    };

    explicit RunQueuePanel(QWidget* parent = nullptr);

    void setEntries(const QVector<Entry>& entries);
    QVector<qint64> runIds() const;
    void setRunning(bool running);
    bool isRunning() const;
    void setContinuePastFailure(bool enabled);
    // Another studio's project: the queue is shown, not changed.
    void setReadOnly(bool readOnly);
    bool continuePastFailure() const;

signals:
    void moveRequested(qint64 runId, int delta);
    void removeRequested(qint64 runId);
    void startRequested();
    void holdRequested();
    void continuePastFailureChanged(bool enabled);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updateButtons();
    qint64 selectedRunId() const;

    QLabel* m_titleLabel;
    QListWidget* m_list;
    QPushButton* m_upButton;
    QPushButton* m_downButton;
    QPushButton* m_removeButton;
    QPushButton* m_startButton;
    QCheckBox* m_continueCheck;
    bool m_readOnly = false;
    QVector<Entry> m_entries;
    bool m_running = false;
};
