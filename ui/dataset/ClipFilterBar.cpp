#include "ui/dataset/ClipFilterBar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

namespace {

constexpr int kAnyStatus = -1;
constexpr int kNotRejected = -2;
// The most characters a closed filter box makes room for; longer tags and buckets are cut.
constexpr int kMostFilterCharacters = 15;
constexpr int kMaximumFrames = 1000000;
constexpr double kMaximumSeconds = 100000.0;

// Keeps the current item's data across a rebuild, adding it back when the new list lacks it.
template <typename Fill>
void rebuildKeepingChoice(QComboBox* box, Fill fill) {
    const QVariant current = box->currentData();
    const QString currentText = box->currentText();
    const QSignalBlocker blocker(box);
    while (box->count() > 1)
        box->removeItem(box->count() - 1);
    fill();
    int index = box->findData(current);
    if (index < 0 && box->currentIndex() != 0 && current.isValid()) {
        box->addItem(currentText, current);
        index = box->count() - 1;
    }
    box->setCurrentIndex(qMax(index, 0));
}

} // namespace

ClipFilterBar::ClipFilterBar(QWidget* parent)
    : QWidget(parent)
    , m_searchEdit(new QLineEdit(this))
    , m_statusBox(new QComboBox(this))
    , m_tagBox(new QComboBox(this))
    , m_bucketBox(new QComboBox(this))
    , m_missingCaptionCheck(new QCheckBox(this))
    , m_moreButton(new QToolButton(this))
    , m_clearButton(new QToolButton(this))
    , m_secondRow(new QWidget(this))
    , m_resolutionLabel(new QLabel(m_secondRow))
    , m_resolutionBox(new QComboBox(m_secondRow))
    , m_durationLabel(new QLabel(m_secondRow))
    , m_minDurationBox(new QDoubleSpinBox(m_secondRow))
    , m_maxDurationBox(new QDoubleSpinBox(m_secondRow))
    , m_framesLabel(new QLabel(m_secondRow))
    , m_minFramesBox(new QSpinBox(m_secondRow))
    , m_maxFramesBox(new QSpinBox(m_secondRow))
    , m_captionsToCheckCheck(new QCheckBox(m_secondRow))
    , m_problemsOnlyCheck(new QCheckBox(m_secondRow)) {
    m_searchEdit->setObjectName(QStringLiteral("filterSearchEdit"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchEdit->setMinimumWidth(120);
    // Sized by their longest entry up to a limit (fitToItems), not by the longest tag or bucket
    // a project may have, so the bar fits a laptop's window and "Not rejected" stays whole.
    for (QComboBox* box : {m_statusBox, m_tagBox, m_bucketBox})
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_statusBox->setObjectName(QStringLiteral("filterStatusBox"));
    m_statusBox->addItem(QString(), kAnyStatus);
    m_statusBox->addItem(QString(), static_cast<int>(ClipStatus::NeedsReview));
    m_statusBox->addItem(QString(), static_cast<int>(ClipStatus::Accepted));
    m_statusBox->addItem(QString(), static_cast<int>(ClipStatus::Rejected));
    m_statusBox->addItem(QString(), kNotRejected);
    m_tagBox->setObjectName(QStringLiteral("filterTagBox"));
    m_tagBox->addItem(QString(), QString());
    m_bucketBox->setObjectName(QStringLiteral("filterBucketBox"));
    m_bucketBox->addItem(QString(), QString());
    m_missingCaptionCheck->setObjectName(QStringLiteral("filterMissingCaptionCheck"));
    m_moreButton->setObjectName(QStringLiteral("filterMoreButton"));
    m_moreButton->setCheckable(true);
    m_moreButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_clearButton->setObjectName(QStringLiteral("filterClearButton"));
    m_clearButton->setToolButtonStyle(Qt::ToolButtonTextOnly);

    m_resolutionBox->setObjectName(QStringLiteral("filterResolutionBox"));
    m_resolutionBox->addItem(QString(), QSize());
    for (QDoubleSpinBox* box : {m_minDurationBox, m_maxDurationBox}) {
        box->setRange(0.0, kMaximumSeconds);
        box->setDecimals(1);
        box->setSingleStep(0.5);
        box->setAccelerated(true);
    }
    m_minDurationBox->setObjectName(QStringLiteral("filterMinDurationBox"));
    m_maxDurationBox->setObjectName(QStringLiteral("filterMaxDurationBox"));
    for (QSpinBox* box : {m_minFramesBox, m_maxFramesBox}) {
        box->setRange(0, kMaximumFrames);
        box->setAccelerated(true);
    }
    m_minFramesBox->setObjectName(QStringLiteral("filterMinFramesBox"));
    m_maxFramesBox->setObjectName(QStringLiteral("filterMaxFramesBox"));
    m_captionsToCheckCheck->setObjectName(QStringLiteral("filterCaptionsToCheckCheck"));
    m_problemsOnlyCheck->setObjectName(QStringLiteral("filterProblemsOnlyCheck"));
    m_resolutionLabel->setBuddy(m_resolutionBox);
    m_durationLabel->setBuddy(m_minDurationBox);
    m_framesLabel->setBuddy(m_minFramesBox);

    auto* firstRow = new QHBoxLayout;
    firstRow->setSpacing(6);
    firstRow->addWidget(m_searchEdit, 2);
    firstRow->addWidget(m_statusBox);
    firstRow->addWidget(m_tagBox);
    firstRow->addWidget(m_bucketBox);
    firstRow->addStretch(1);
    firstRow->addWidget(m_moreButton);
    firstRow->addWidget(m_clearButton);

    auto* ranges = new QHBoxLayout;
    ranges->setSpacing(6);
    ranges->addWidget(m_resolutionLabel);
    ranges->addWidget(m_resolutionBox);
    ranges->addSpacing(10);
    ranges->addWidget(m_durationLabel);
    ranges->addWidget(m_minDurationBox);
    ranges->addWidget(new QLabel(QStringLiteral("–"), m_secondRow));
    ranges->addWidget(m_maxDurationBox);
    ranges->addSpacing(10);
    ranges->addWidget(m_framesLabel);
    ranges->addWidget(m_minFramesBox);
    ranges->addWidget(new QLabel(QStringLiteral("–"), m_secondRow));
    ranges->addWidget(m_maxFramesBox);
    ranges->addStretch(1);
    auto* checks = new QHBoxLayout;
    checks->setSpacing(12);
    checks->addWidget(m_missingCaptionCheck);
    checks->addWidget(m_captionsToCheckCheck);
    checks->addWidget(m_problemsOnlyCheck);
    checks->addStretch(1);
    auto* secondRow = new QVBoxLayout(m_secondRow);
    secondRow->setContentsMargins(0, 0, 0, 0);
    secondRow->setSpacing(4);
    secondRow->addLayout(ranges);
    secondRow->addLayout(checks);
    m_secondRow->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(firstRow);
    layout->addWidget(m_secondRow);

    m_searchTimer.setSingleShot(true);
    m_searchTimer.setInterval(kSearchDelayMs);
    connect(&m_searchTimer, &QTimer::timeout, this, &ClipFilterBar::onChanged);
    connect(m_searchEdit, &QLineEdit::textChanged, this, [this] { m_searchTimer.start(); });
    connect(m_searchEdit, &QLineEdit::returnPressed, this, &ClipFilterBar::onChanged);
    for (QComboBox* box : {m_statusBox, m_tagBox, m_bucketBox, m_resolutionBox})
        connect(box, &QComboBox::currentIndexChanged, this, &ClipFilterBar::onChanged);
    for (QCheckBox* box : {m_missingCaptionCheck, m_captionsToCheckCheck, m_problemsOnlyCheck})
        connect(box, &QCheckBox::toggled, this, &ClipFilterBar::onChanged);
    for (QDoubleSpinBox* box : {m_minDurationBox, m_maxDurationBox})
        connect(box, &QDoubleSpinBox::valueChanged, this, &ClipFilterBar::onChanged);
    for (QSpinBox* box : {m_minFramesBox, m_maxFramesBox})
        connect(box, &QSpinBox::valueChanged, this, &ClipFilterBar::onChanged);
    connect(m_moreButton, &QToolButton::toggled, this, &ClipFilterBar::updateSecondRow);
    connect(m_clearButton, &QToolButton::clicked, this, &ClipFilterBar::clearFilters);

    retranslateUi();
    m_clearButton->setEnabled(false);
}

ClipFilter ClipFilterBar::filter() const {
    ClipFilter filter;
    const int status = m_statusBox->currentData().toInt();
    if (status == kNotRejected)
        filter.statuses = {ClipStatus::NeedsReview, ClipStatus::Accepted};
    else if (status != kAnyStatus)
        filter.statuses = {static_cast<ClipStatus>(status)};
    filter.tag = m_tagBox->currentData().toString();
    filter.bucketKey = m_bucketBox->currentData().toString();
    const QSize resolution = m_resolutionBox->currentData().toSize();
    if (resolution.isValid()) {
        filter.minWidth = filter.maxWidth = resolution.width();
        filter.minHeight = filter.maxHeight = resolution.height();
    }
    filter.minDurationSeconds = m_minDurationBox->value();
    filter.maxDurationSeconds = m_maxDurationBox->value();
    filter.minFrames = m_minFramesBox->value();
    filter.maxFrames = m_maxFramesBox->value();
    filter.captionText = m_searchEdit->text().trimmed();
    filter.missingCaptionOnly = m_missingCaptionCheck->isChecked();
    filter.captionsToCheckOnly = m_captionsToCheckCheck->isChecked();
    filter.problemsOnly = m_problemsOnlyCheck->isChecked();
    return filter;
}

bool ClipFilterBar::isFiltering() const {
    const ClipFilter current = filter();
    return !current.statuses.isEmpty() || !current.tag.isEmpty() || !current.bucketKey.isEmpty() ||
           current.minWidth > 0 || current.minDurationSeconds > 0.0 ||
           current.maxDurationSeconds > 0.0 || current.minFrames > 0 || current.maxFrames > 0 ||
           !current.captionText.isEmpty() || current.missingCaptionOnly ||
           current.captionsToCheckOnly || current.problemsOnly;
}

void ClipFilterBar::setChoices(const QStringList& tags, const QList<QSize>& resolutions,
                               const QList<QPair<QString, QString>>& buckets) {
    rebuildKeepingChoice(m_tagBox, [&] {
        for (const QString& tag : tags)
            m_tagBox->addItem(tag, tag);
    });
    rebuildKeepingChoice(m_resolutionBox, [&] {
        for (const QSize& size : resolutions)
            m_resolutionBox->addItem(tr("%1×%2").arg(size.width()).arg(size.height()), size);
    });
    rebuildKeepingChoice(m_bucketBox, [&] {
        for (const auto& [key, text] : buckets)
            m_bucketBox->addItem(text, key);
        m_bucketBox->addItem(tr("Not in a bucket"), ClipFilter::kDroppedBucketKey);
    });
    for (QComboBox* box : {m_statusBox, m_tagBox, m_bucketBox})
        fitToItems(box);
}

void ClipFilterBar::fitToItems(QComboBox* box) {
    int longest = 0;
    for (int index = 0; index < box->count(); ++index)
        longest = std::max(longest, static_cast<int>(box->itemText(index).size()));
    box->setMinimumContentsLength(std::min(longest, kMostFilterCharacters));
}

void ClipFilterBar::setStatusFilter(ClipStatus status) {
    m_statusBox->setCurrentIndex(qMax(0, m_statusBox->findData(static_cast<int>(status))));
}

void ClipFilterBar::setProblemsOnly(bool problemsOnly) {
    if (problemsOnly)
        m_moreButton->setChecked(true);
    m_problemsOnlyCheck->setChecked(problemsOnly);
}

void ClipFilterBar::focusSearch() {
    m_searchEdit->setFocus(Qt::ShortcutFocusReason);
    m_searchEdit->selectAll();
}

void ClipFilterBar::clearFilters() {
    m_updating = true;
    m_searchTimer.stop();
    m_searchEdit->clear();
    for (QComboBox* box : {m_statusBox, m_tagBox, m_bucketBox, m_resolutionBox})
        box->setCurrentIndex(0);
    for (QCheckBox* box : {m_missingCaptionCheck, m_captionsToCheckCheck, m_problemsOnlyCheck})
        box->setChecked(false);
    for (QDoubleSpinBox* box : {m_minDurationBox, m_maxDurationBox})
        box->setValue(0.0);
    for (QSpinBox* box : {m_minFramesBox, m_maxFramesBox})
        box->setValue(0);
    m_updating = false;
    onChanged();
}

void ClipFilterBar::onChanged() {
    if (m_updating)
        return;
    m_searchTimer.stop();
    m_clearButton->setEnabled(isFiltering());
    emit filterChanged(filter());
}

void ClipFilterBar::updateSecondRow() {
    m_secondRow->setVisible(m_moreButton->isChecked());
}

void ClipFilterBar::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void ClipFilterBar::retranslateUi() {
    m_searchEdit->setPlaceholderText(tr("Search captions (Ctrl+F)"));
    m_searchEdit->setToolTip(tr("Shows the clips whose caption contains this text"));
    m_statusBox->setItemText(0, tr("Any status"));
    for (int index = 1; index < m_statusBox->count(); ++index) {
        const int status = m_statusBox->itemData(index).toInt();
        m_statusBox->setItemText(index,
                                 status == kNotRejected
                                     ? tr("Not rejected")
                                     : ClipRecord::statusText(static_cast<ClipStatus>(status)));
    }
    m_statusBox->setToolTip(tr("Status"));
    m_tagBox->setItemText(0, tr("Any tag"));
    m_tagBox->setToolTip(tr("Tag"));
    m_bucketBox->setItemText(0, tr("Any bucket"));
    const int dropped = m_bucketBox->findData(ClipFilter::kDroppedBucketKey);
    if (dropped >= 0)
        m_bucketBox->setItemText(dropped, tr("Not in a bucket"));
    m_bucketBox->setToolTip(
        tr("The bucket a run from the Train page's form puts the clip in; "
           "“Not in a bucket”: the clips it leaves out (too short, unreadable)"));
    for (QComboBox* box : {m_statusBox, m_tagBox, m_bucketBox})
        fitToItems(box);
    m_missingCaptionCheck->setText(tr("Missing caption"));
    m_moreButton->setText(tr("More Filters"));
    m_clearButton->setText(tr("Clear Filters"));
    m_resolutionLabel->setText(tr("&Resolution:"));
    m_resolutionBox->setItemText(0, tr("Any"));
    for (int index = 1; index < m_resolutionBox->count(); ++index) {
        const QSize size = m_resolutionBox->itemData(index).toSize();
        m_resolutionBox->setItemText(index, tr("%1×%2").arg(size.width()).arg(size.height()));
    }
    m_durationLabel->setText(tr("D&uration:"));
    m_framesLabel->setText(tr("F&rames:"));
    for (QDoubleSpinBox* box : {m_minDurationBox, m_maxDurationBox}) {
        box->setSpecialValueText(tr("any"));
        box->setSuffix(tr(" s"));
    }
    for (QSpinBox* box : {m_minFramesBox, m_maxFramesBox})
        box->setSpecialValueText(tr("any"));
    m_minDurationBox->setToolTip(tr("Shortest duration after trimming, in seconds"));
    m_maxDurationBox->setToolTip(tr("Longest duration after trimming, in seconds"));
    m_minFramesBox->setToolTip(tr("Fewest frames after trimming"));
    m_maxFramesBox->setToolTip(tr("Most frames after trimming"));
    m_captionsToCheckCheck->setText(tr("Captions to check"));
    m_captionsToCheckCheck->setToolTip(
        tr("Captions flagged during import: the text encoding was guessed, characters "
           "that were not text were replaced, or the caption is too long to edit"));
    m_problemsOnlyCheck->setText(tr("Problems only"));
    m_problemsOnlyCheck->setToolTip(tr("Files that are missing, damaged or not videos"));
}
