#pragma once

#include "app/dataset/PreparedSkips.h"

#include <QStringList>
#include <QVector>
#include <QWidget>

class QLabel;
class QPushButton;
class QToolButton;
class QTreeWidget;

// The clips the selected run's `prepare` left out: a line with their count, which opens to each
// clip and why, and a way to the Dataset page to fix or remove them. Hidden while the run left
// out none (or has not been prepared).
class SkippedClipsPanel : public QWidget {
    Q_OBJECT

public:
    explicit SkippedClipsPanel(QWidget* parent = nullptr);

    void setClips(const QVector<PreparedSkips::Clip>& clips);
    QVector<PreparedSkips::Clip> clips() const { return m_clips; }

signals:
    // The clips to show on the Dataset page: the selected rows, or every row when none is.
    void showClipsRequested(const QStringList& paths);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    QStringList chosenPaths() const;

    QLabel* m_explanationLabel;
    QTreeWidget* m_list;
    QToolButton* m_detailsButton;
    QPushButton* m_showButton;
    QVector<PreparedSkips::Clip> m_clips;
};
