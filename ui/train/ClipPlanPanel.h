#pragma once

#include "app/dataset/buckets/TrainingClipPlan.h"

#include <QStringList>
#include <QWidget>

class QLabel;
class QPushButton;
class QToolButton;
class QTreeWidget;

// A TrainingClipPlan in one line ("6 clips train · 1 stretched to a bucket of another shape ·
// 1 left out"), which opens to each clip that is reshaped, left out or not reviewed, with a way
// to the Dataset page. Under the Train form it says what Train is about to do with the clips;
// above a run's plots, what that run did. Hidden while there is nothing to say.
class ClipPlanPanel : public QWidget {
    Q_OBJECT

public:
    explicit ClipPlanPanel(const QString& objectName, QWidget* parent = nullptr);

    void setPlan(const TrainingClipPlan& plan);
    const TrainingClipPlan& plan() const { return m_plan; }
    // Shown even when every clip trains as it is (the line then says how many).
    void setAlwaysShown(bool shown);
    QString summaryText() const;

signals:
    // The clips to show on the Dataset page: the selected rows, or every row when none is.
    void showClipsRequested(const QStringList& paths);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updateVisibility();
    QStringList chosenPaths() const;

    TrainingClipPlan m_plan;
    bool m_alwaysShown = false;
    QToolButton* m_detailsButton;
    QLabel* m_summaryLabel;
    QTreeWidget* m_list;
    QPushButton* m_showButton;
};
