#pragma once

#include "app/dataset/buckets/TrainingClipSettings.h"
#include "common/bucket_assignment.h"

#include <QDialog>
#include <QPointer>
#include <QTimer>

class BucketChartWidget;
class BucketPreviewModel;
class ClipTableModel;
class QLabel;
class QLineEdit;
class QTableView;

// Where the project's clips will train: the Train form's resolution buckets ("480x720,
// 720x480") and frame buckets ("49, 25"), and a table and a bar chart of the clips each bucket
// takes and the clips dropped, by reason. The lists can be typed here too: valid ones are
// handed on (configChanged) to become the Train form's, so the preview is always what Train
// trains. The buckets are those the form's model takes (TrainingClipSettings::modelBuckets): a
// frame count or side it does not take is rounded to the nearest it does, with a note, and the
// rounded lists are what is handed on. The assignment is common/'s, the same that prepare runs.
// Non-modal: it follows clip edits and the Train form while it stays open.
class BucketPreviewDialog : public QDialog {
    Q_OBJECT

public:
    static constexpr int kUpdateDelayMs = 150;

    explicit BucketPreviewDialog(ClipTableModel* clips, QWidget* parent = nullptr);

    void setConfig(const tuneframe::common::BucketConfig& config);
    // The Train form's buckets and fit; lists the user is typing stay as typed.
    void setClipSettings(const TrainingClipSettings& settings);
    tuneframe::common::BucketConfig config() const;
    BucketPreviewModel* previewModel() const;
    BucketChartWidget* chart() const;
    // Recomputes now instead of after the typing delay.
    void updatePreview();

signals:
    void configChanged(const tuneframe::common::BucketConfig& config);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void scheduleUpdate();
    // Returns false with the error shown when the lists do not read.
    bool readConfig(tuneframe::common::BucketConfig* config);
    // The typed lists as the model takes them; the note says what changed.
    tuneframe::common::BucketConfig snapToModel(const tuneframe::common::BucketConfig& typed);

    QPointer<ClipTableModel> m_clips;
    BucketPreviewModel* m_previewModel;
    tuneframe::common::BucketConfig m_config;
    QLabel* m_resolutionsLabel;
    QLineEdit* m_resolutionsEdit;
    QLabel* m_framesLabel;
    QLineEdit* m_framesEdit;
    QLabel* m_sourceLabel;
    QString m_resizeMode;
    QLabel* m_errorLabel;
    QLabel* m_snapNote; // what the model's multiples changed in the lists
    ModelFacts m_model;
    QLabel* m_summaryLabel;
    QTableView* m_table;
    BucketChartWidget* m_chart;
    QTimer m_updateTimer;
    bool m_loading = false;
};
