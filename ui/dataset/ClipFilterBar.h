#pragma once

#include "app/dataset/ClipFilter.h"

#include <QList>
#include <QPair>
#include <QSize>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QToolButton;

// The clip browser's filters as widgets: caption search, status, tag and bucket in the first
// row; resolution, duration, frame count, "missing caption", "captions to check" and "problems
// only" below it, in rows the user opens with More Filters. Every change is a new ClipFilter;
// typing in the search field is debounced.
class ClipFilterBar : public QWidget {
    Q_OBJECT

public:
    static constexpr int kSearchDelayMs = 200;

    explicit ClipFilterBar(QWidget* parent = nullptr);

    ClipFilter filter() const;
    bool isFiltering() const;

    // What the project holds, for the combo boxes; a current choice that is gone is kept so
    // the user sees why nothing matches. buckets: (BucketPreview key, text) pairs.
    void setChoices(const QStringList& tags, const QList<QSize>& resolutions,
                    const QList<QPair<QString, QString>>& buckets);

    void setStatusFilter(ClipStatus status);
    void setProblemsOnly(bool problemsOnly);
    void focusSearch();

public slots:
    void clearFilters();

signals:
    void filterChanged(const ClipFilter& filter);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    static void fitToItems(QComboBox* box);
    void onChanged();
    void updateSecondRow();

    QLineEdit* m_searchEdit;
    QComboBox* m_statusBox;
    QComboBox* m_tagBox;
    QComboBox* m_bucketBox;
    QCheckBox* m_missingCaptionCheck;
    QToolButton* m_moreButton;
    QToolButton* m_clearButton;
    QWidget* m_secondRow;
    QLabel* m_resolutionLabel;
    QComboBox* m_resolutionBox;
    QLabel* m_durationLabel;
    QDoubleSpinBox* m_minDurationBox;
    QDoubleSpinBox* m_maxDurationBox;
    QLabel* m_framesLabel;
    QSpinBox* m_minFramesBox;
    QSpinBox* m_maxFramesBox;
    QCheckBox* m_captionsToCheckCheck;
    QCheckBox* m_problemsOnlyCheck;
    QTimer m_searchTimer;
    bool m_updating = false;
};
