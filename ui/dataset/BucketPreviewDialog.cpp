#include "ui/dataset/BucketPreviewDialog.h"

#include "app/dataset/ClipTableModel.h"
#include "app/dataset/buckets/BucketListText.h"
#include "app/dataset/buckets/BucketPreview.h"
#include "app/dataset/buckets/BucketPreviewModel.h"
#include "ui/dataset/BucketChartWidget.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

BucketPreviewDialog::BucketPreviewDialog(ClipTableModel* clips, QWidget* parent)
    : QDialog(parent)
    , m_clips(clips)
    , m_previewModel(new BucketPreviewModel(this))
    , m_resolutionsLabel(new QLabel(this))
    , m_resolutionsEdit(new QLineEdit(this))
    , m_framesLabel(new QLabel(this))
    , m_framesEdit(new QLineEdit(this))
    , m_sourceLabel(new QLabel(this))
    , m_errorLabel(new QLabel(this))
    , m_snapNote(new QLabel(this))
    , m_summaryLabel(new QLabel(this))
    , m_table(new QTableView(this))
    , m_chart(new BucketChartWidget(this)) {
    setObjectName(QStringLiteral("bucketPreviewDialog"));
    m_resolutionsEdit->setObjectName(QStringLiteral("bucketResolutionsEdit"));
    m_framesEdit->setObjectName(QStringLiteral("bucketFramesEdit"));
    m_sourceLabel->setObjectName(QStringLiteral("bucketSourceLabel"));
    m_sourceLabel->setWordWrap(true);
    m_sourceLabel->setForegroundRole(QPalette::PlaceholderText);
    m_errorLabel->setObjectName(QStringLiteral("bucketErrorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setStyleSheet(QStringLiteral("color: #c94040;"));
    m_errorLabel->hide();
    m_snapNote->setObjectName(QStringLiteral("bucketModelNote"));
    m_snapNote->setWordWrap(true);
    m_snapNote->setForegroundRole(QPalette::PlaceholderText);
    m_snapNote->hide();
    m_summaryLabel->setObjectName(QStringLiteral("bucketSummaryLabel"));
    m_summaryLabel->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("bucketTable"));
    m_table->setModel(m_previewModel);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(BucketPreviewModel::BucketColumn,
                                                      QHeaderView::Stretch);
    m_chart->setObjectName(QStringLiteral("bucketChart"));
    m_chart->setModel(m_previewModel);
    m_resolutionsLabel->setBuddy(m_resolutionsEdit);
    m_framesLabel->setBuddy(m_framesEdit);

    auto* form = new QFormLayout;
    form->addRow(m_resolutionsLabel, m_resolutionsEdit);
    form->addRow(m_framesLabel, m_framesEdit);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_table);
    splitter->setChildrenCollapsible(false);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_sourceLabel);
    layout->addLayout(form);
    layout->addWidget(m_errorLabel);
    layout->addWidget(m_snapNote);
    layout->addWidget(m_summaryLabel);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);

    m_updateTimer.setSingleShot(true);
    m_updateTimer.setInterval(kUpdateDelayMs);
    connect(&m_updateTimer, &QTimer::timeout, this, &BucketPreviewDialog::updatePreview);
    connect(m_resolutionsEdit, &QLineEdit::textChanged, this, &BucketPreviewDialog::scheduleUpdate);
    connect(m_framesEdit, &QLineEdit::textChanged, this, &BucketPreviewDialog::scheduleUpdate);
    if (m_clips) {
        connect(m_clips, &QAbstractItemModel::modelReset, this,
                &BucketPreviewDialog::scheduleUpdate);
        connect(m_clips, &QAbstractItemModel::dataChanged, this,
                &BucketPreviewDialog::scheduleUpdate);
        connect(m_clips, &QAbstractItemModel::rowsInserted, this,
                &BucketPreviewDialog::scheduleUpdate);
        connect(m_clips, &QAbstractItemModel::rowsRemoved, this,
                &BucketPreviewDialog::scheduleUpdate);
    }

    resize(620, 560);
    retranslateUi();
    setConfig(m_clips ? m_clips->bucketConfig() : BucketPreview::defaultConfig());
}

void BucketPreviewDialog::setConfig(const tuneframe::common::BucketConfig& config) {
    m_loading = true;
    m_resolutionsEdit->setText(BucketListText::formatResolutions(config.resolutions));
    m_framesEdit->setText(BucketListText::formatFrameBuckets(config.frame_buckets));
    m_loading = false;
    m_config = config;
    updatePreview();
}

void BucketPreviewDialog::setClipSettings(const TrainingClipSettings& settings) {
    m_resizeMode = settings.resizeMode;
    const bool otherModel = settings.model != m_model;
    m_model = settings.model;
    retranslateUi();
    const bool sameLists = BucketListText::formatResolutions(settings.buckets.resolutions) ==
                               BucketListText::formatResolutions(m_config.resolutions) &&
                           settings.buckets.frame_buckets == m_config.frame_buckets;
    if (!sameLists && !m_updateTimer.isActive())
        setConfig(settings.buckets);
    else if (otherModel)
        updatePreview();
}

tuneframe::common::BucketConfig BucketPreviewDialog::config() const {
    return m_config;
}

BucketPreviewModel* BucketPreviewDialog::previewModel() const {
    return m_previewModel;
}

BucketChartWidget* BucketPreviewDialog::chart() const {
    return m_chart;
}

void BucketPreviewDialog::scheduleUpdate() {
    if (!m_loading)
        m_updateTimer.start();
}

bool BucketPreviewDialog::readConfig(tuneframe::common::BucketConfig* config) {
    QString error;
    if (!BucketListText::parseResolutions(m_resolutionsEdit->text(), &config->resolutions,
                                          &error) ||
        !BucketListText::parseFrameBuckets(m_framesEdit->text(), &config->frame_buckets, &error)) {
        m_errorLabel->setText(error);
        m_errorLabel->show();
        return false;
    }
    m_errorLabel->hide();
    return true;
}

void BucketPreviewDialog::updatePreview() {
    m_updateTimer.stop();
    tuneframe::common::BucketConfig config;
    // While the lists do not read, the last good preview stays on screen next to the error.
    if (!readConfig(&config))
        return;
    config = snapToModel(config);
    const bool changed = BucketListText::formatResolutions(config.resolutions) !=
                             BucketListText::formatResolutions(m_config.resolutions) ||
                         config.frame_buckets != m_config.frame_buckets;
    m_config = config;
    const BucketPreview::Result result =
        BucketPreview::compute(m_clips ? m_clips->records() : QVector<ClipRecord>(), config);
    m_previewModel->setResult(result);
    int placed = 0;
    for (const BucketPreview::Bucket& bucket : result.buckets)
        placed += static_cast<int>(bucket.clipIds.size());
    QStringList parts{placed == 1 ? tr("1 clip placed") : tr("%1 clips placed").arg(placed),
                      tr("%1 dropped").arg(result.dropped.size())};
    if (result.rejectedCount > 0)
        parts.append(tr("%1 rejected, not counted").arg(result.rejectedCount));
    m_summaryLabel->setText(parts.join(QStringLiteral(" · ")));
    if (changed)
        emit configChanged(config);
}

tuneframe::common::BucketConfig
BucketPreviewDialog::snapToModel(const tuneframe::common::BucketConfig& typed) {
    const tuneframe::common::BucketConfig taken = TrainingClipSettings::snapped(typed, m_model);
    QStringList notes;
    if (m_model.family.isEmpty()) {
        m_snapNote->hide();
        return taken;
    }
    QStringList frames;
    for (const int count : typed.frame_buckets) {
        if (m_model.snappedFrames(count) != count)
            frames.append(tr("%1 becomes %2").arg(count).arg(m_model.snappedFrames(count)));
    }
    if (!frames.isEmpty())
        notes.append(tr("This model takes frame counts of %1k + 1: %2.")
                         .arg(m_model.frameStep())
                         .arg(frames.join(QStringLiteral(", "))));
    QStringList sizes;
    for (const tuneframe::common::ResolutionBucket& size : typed.resolutions) {
        const int height = m_model.snappedSide(size.height);
        const int width = m_model.snappedSide(size.width);
        if (height != size.height || width != size.width)
            sizes.append(
                tr("%1x%2 becomes %3x%4").arg(size.height).arg(size.width).arg(height).arg(width));
    }
    if (!sizes.isEmpty())
        notes.append(tr("This model takes sides in multiples of %1 pixels: %2.")
                         .arg(m_model.sizeMultiple())
                         .arg(sizes.join(QStringLiteral(", "))));
    m_snapNote->setText(notes.join(QLatin1Char('\n')));
    m_snapNote->setVisible(!notes.isEmpty());
    return taken;
}

void BucketPreviewDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        updatePreview();
    }
    QDialog::changeEvent(event);
}

void BucketPreviewDialog::retranslateUi() {
    setWindowTitle(tr("Bucket Preview"));
    m_resolutionsLabel->setText(tr("&Resolutions:"));
    m_resolutionsEdit->setPlaceholderText(tr("height x width, for example 480x720, 720x480"));
    m_resolutionsEdit->setToolTip(tr("Each clip goes to the resolution closest to its own size"));
    m_framesLabel->setText(tr("&Frame buckets:"));
    m_framesEdit->setPlaceholderText(tr("frame counts, for example 49, 25"));
    m_framesEdit->setToolTip(tr("Each clip goes to the frame count closest to its length "
                                "after trimming; clips shorter than that are dropped"));
    const QString fit = m_resizeMode == QLatin1String("center_crop")
                            ? tr("A clip whose shape differs from its bucket's is cropped at the "
                                 "centre to fit.")
                        : m_resizeMode == QLatin1String("random_crop")
                            ? tr("A clip whose shape differs from its bucket's is cropped at a "
                                 "random place to fit.")
                            : tr("A clip whose shape differs from its bucket's is stretched to "
                                 "fit.");
    m_sourceLabel->setText(tr("The buckets of the Train page's form, which a run trains with; "
                              "lists typed here become the form's.") +
                           QLatin1Char(' ') + fit);
}
