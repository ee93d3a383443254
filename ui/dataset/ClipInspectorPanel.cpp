#include "ui/dataset/ClipInspectorPanel.h"

#include "app/captions/CaptionLength.h"
#include "app/captions/CaptionTokenCounter.h"
#include "app/dataset/ClipCuration.h"
#include "app/dataset/ClipRecord.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/buckets/BucketPreview.h"
#include "app/dataset/buckets/TrainingClipPlan.h"
#include "app/playback/PlaybackEngine.h"
#include "ui/captions/CaptionEditor.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/widgets/RatingWidget.h"

#include <QAction>
#include <QCompleter>
#include <QDir>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QStackedWidget>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <optional>

namespace {

QToolButton* statusButton(QWidget* parent, const QString& objectName) {
    auto* button = new QToolButton(parent);
    button->setObjectName(objectName);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setFocusPolicy(Qt::NoFocus);
    return button;
}

QLabel* smallLabel(QWidget* parent, const QString& objectName) {
    auto* label = new QLabel(parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    QFont font = label->font();
    font.setPointSizeF(font.pointSizeF() * 0.9);
    label->setFont(font);
    return label;
}

} // namespace

ClipInspectorPanel::ClipInspectorPanel(QWidget* parent)
    : QWidget(parent)
    , m_stack(new QStackedWidget(this))
    , m_emptyLabel(new QLabel(this))
    , m_content(new QWidget(this))
    , m_titleLabel(new QLabel(m_content))
    , m_factsLabel(smallLabel(m_content, QStringLiteral("inspectorFactsLabel")))
    , m_problemLabel(smallLabel(m_content, QStringLiteral("inspectorProblemLabel")))
    , m_player(new VideoPlayerWidget(m_content))
    , m_statusLabel(new QLabel(m_content))
    , m_acceptButton(statusButton(m_content, QStringLiteral("inspectorAcceptButton")))
    , m_reviewButton(statusButton(m_content, QStringLiteral("inspectorNeedsReviewButton")))
    , m_rejectButton(statusButton(m_content, QStringLiteral("inspectorRejectButton")))
    , m_ratingLabel(new QLabel(m_content))
    , m_rating(new RatingWidget(m_content))
    , m_captionLabel(new QLabel(m_content))
    , m_triggerButton(new QToolButton(m_content))
    , m_tokenLabel(smallLabel(m_content, QStringLiteral("inspectorTokenLabel")))
    , m_captionEditor(new CaptionEditor(m_content))
    , m_tokenNote(smallLabel(m_content, QStringLiteral("inspectorTokenNote")))
    , m_captionNote(smallLabel(m_content, QStringLiteral("inspectorCaptionNote")))
    , m_shortenCaptionButton(new QPushButton(m_content))
    , m_markCheckedButton(new QPushButton(m_content))
    , m_useFrameButton(new QPushButton(m_content))
    , m_clearFrameButton(new QPushButton(m_content))
    , m_conditionLabel(new QLabel(m_content))
    , m_tagsLabel(new QLabel(m_content))
    , m_tagsEdit(new QLineEdit(m_content)) {
    setObjectName(QStringLiteral("clipInspector"));
    m_emptyLabel->setObjectName(QStringLiteral("inspectorEmptyLabel"));
    m_emptyLabel->setAlignment(Qt::AlignCenter);
    m_emptyLabel->setWordWrap(true);
    m_emptyLabel->setForegroundRole(QPalette::PlaceholderText);
    m_titleLabel->setObjectName(QStringLiteral("inspectorTitleLabel"));
    m_titleLabel->setTextFormat(Qt::PlainText);
    QFont titleFont = m_titleLabel->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_titleLabel->setFont(titleFont);
    m_problemLabel->setStyleSheet(QStringLiteral("color: #c94040;"));
    m_factsLabel->setForegroundRole(QPalette::PlaceholderText);
    // The player and the caption share what height there is (4 : 1) down to their minimums;
    // their preferred sizes would push the caption below a laptop's fold, so they have none.
    m_player->setMinimumHeight(140);
    m_player->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    m_rating->setObjectName(QStringLiteral("inspectorRating"));
    m_triggerButton->setObjectName(QStringLiteral("inspectorTriggerWordButton"));
    m_triggerButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_triggerButton->setFocusPolicy(Qt::NoFocus);
    m_captionEditor->setObjectName(QStringLiteral("captionEditor"));
    m_captionEditor->setMinimumHeight(70);
    m_captionEditor->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);
    m_tokenLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_tokenLabel->setWordWrap(false);
    m_tokenLabel->hide();
    m_tokenNote->setForegroundRole(QPalette::PlaceholderText);
    m_tokenNote->setWordWrap(false);
    m_captionNote->setStyleSheet(QStringLiteral("color: #b07010;"));
    m_shortenCaptionButton->setObjectName(QStringLiteral("inspectorShortenCaptionButton"));
    m_markCheckedButton->setObjectName(QStringLiteral("inspectorMarkCheckedButton"));
    m_useFrameButton->setObjectName(QStringLiteral("useThisFrameButton"));
    m_clearFrameButton->setObjectName(QStringLiteral("clearConditionFrameButton"));
    m_conditionLabel->setObjectName(QStringLiteral("conditionFrameLabel"));
    m_conditionLabel->setForegroundRole(QPalette::PlaceholderText);
    m_conditionLabel->setWordWrap(true);
    m_tagsEdit->setObjectName(QStringLiteral("inspectorTagsEdit"));
    m_tagsEdit->setClearButtonEnabled(true);
    m_tagsEdit->setCompleter(new QCompleter(new QStringListModel(m_tagsEdit), m_tagsEdit));
    m_tagsEdit->completer()->setCaseSensitivity(Qt::CaseInsensitive);
    m_captionLabel->setBuddy(m_captionEditor);
    m_tagsLabel->setBuddy(m_tagsEdit);

    // Status and rating side by side where the panel is wide enough for both, else one above
    // the other (resizeEvent), so a laptop's narrow panel shows both whole.
    auto* statusGroup = new QHBoxLayout;
    statusGroup->setSpacing(4);
    statusGroup->addWidget(m_statusLabel);
    statusGroup->addWidget(m_acceptButton);
    statusGroup->addWidget(m_reviewButton);
    statusGroup->addWidget(m_rejectButton);
    statusGroup->addStretch(1);
    auto* ratingGroup = new QHBoxLayout;
    ratingGroup->setSpacing(4);
    ratingGroup->addWidget(m_ratingLabel);
    ratingGroup->addWidget(m_rating);
    ratingGroup->addStretch(1);
    m_statusRows = new QBoxLayout(QBoxLayout::TopToBottom);
    m_statusRows->setSpacing(2);
    m_statusRows->addLayout(statusGroup);
    m_statusRows->addLayout(ratingGroup);

    auto* captionHeader = new QHBoxLayout;
    captionHeader->addWidget(m_captionLabel);
    captionHeader->addWidget(m_triggerButton);
    captionHeader->addStretch(1);
    captionHeader->addWidget(m_tokenLabel);
    // One line beside the caption's title, the reason in its tooltip: a wrapped note under the
    // caption pushed the caption below a laptop's fold.
    captionHeader->addWidget(m_tokenNote);

    auto* captionCheck = new QHBoxLayout;
    captionCheck->addWidget(m_captionNote, 1);
    captionCheck->addWidget(m_shortenCaptionButton);
    captionCheck->addWidget(m_markCheckedButton);

    auto* tagsRow = new QHBoxLayout;
    tagsRow->addWidget(m_tagsLabel);
    tagsRow->addWidget(m_tagsEdit, 1);

    auto* layout = new QVBoxLayout(m_content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_titleLabel);
    layout->addWidget(m_factsLabel);
    layout->addWidget(m_problemLabel);
    layout->addWidget(m_player, 4);
    auto* conditionRow = new QHBoxLayout;
    conditionRow->addWidget(m_conditionLabel, 1);
    conditionRow->addWidget(m_useFrameButton);
    conditionRow->addWidget(m_clearFrameButton);
    layout->addLayout(conditionRow);
    layout->addLayout(m_statusRows);
    layout->addLayout(captionHeader);
    layout->addWidget(m_captionEditor, 1);
    layout->addLayout(captionCheck);
    layout->addLayout(tagsRow);

    m_stack->addWidget(m_emptyLabel);
    m_stack->addWidget(m_content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(8, 0, 0, 0);
    outer->addWidget(m_stack);

    m_refreshTimer.setSingleShot(true);
    m_refreshTimer.setInterval(0);
    connect(&m_refreshTimer, &QTimer::timeout, this, &ClipInspectorPanel::refresh);
    connect(m_captionEditor, &CaptionEditor::captionCommitted, this,
            &ClipInspectorPanel::onCaptionCommitted);
    connect(m_captionEditor, &CaptionEditor::undoRequested, this,
            &ClipInspectorPanel::undoRequested);
    connect(m_captionEditor, &CaptionEditor::redoRequested, this,
            &ClipInspectorPanel::redoRequested);
    connect(m_captionEditor, &CaptionEditor::leaveRequested, this,
            &ClipInspectorPanel::leaveRequested);
    connect(m_captionEditor, &QPlainTextEdit::textChanged, this,
            &ClipInspectorPanel::updateTokenCount);
    connect(m_tagsEdit, &QLineEdit::editingFinished, this, &ClipInspectorPanel::onTagsEdited);
    connect(m_player, &VideoPlayerWidget::trimChanged, this, &ClipInspectorPanel::onTrimChanged);
    connect(m_rating, &RatingWidget::ratingEdited, this, &ClipInspectorPanel::onRatingEdited);
    connect(m_useFrameButton, &QPushButton::clicked, this, [this] {
        const int frame = m_player->currentFrameIndex();
        if (m_curation && m_clipIds.size() == 1 && frame >= 0 && m_player->clipPath() == m_openPath)
            m_curation->setConditionFrame(m_clipIds.constFirst(), frame);
    });
    connect(m_clearFrameButton, &QPushButton::clicked, this, [this] {
        if (m_curation && m_clipIds.size() == 1)
            m_curation->setConditionFrame(m_clipIds.constFirst(), std::nullopt);
    });
    connect(m_shortenCaptionButton, &QPushButton::clicked, this,
            &ClipInspectorPanel::onShortenCaption);
    connect(m_markCheckedButton, &QPushButton::clicked, this, [this] {
        if (m_curation)
            m_curation->markCaptionsChecked(m_clipIds);
    });

    retranslateUi();
    m_stack->setCurrentWidget(m_emptyLabel);
}

ClipInspectorPanel::~ClipInspectorPanel() = default;

void ClipInspectorPanel::setSession(ClipTableModel* model, ClipCuration* curation,
                                    CaptionTokenCounter* counter) {
    if (m_model)
        m_model->disconnect(this);
    if (m_tokenCounter)
        m_tokenCounter->disconnect(this);
    m_model = model;
    m_curation = curation;
    m_tokenCounter = counter;
    m_clipIds.clear();
    m_tokenizerProblem.clear();
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, &m_refreshTimer,
                qOverload<>(&QTimer::start));
        connect(model, &QAbstractItemModel::dataChanged, &m_refreshTimer,
                qOverload<>(&QTimer::start));
        connect(model, &QAbstractItemModel::rowsRemoved, &m_refreshTimer,
                qOverload<>(&QTimer::start));
    }
    if (counter) {
        connect(counter, &CaptionTokenCounter::loaded, this,
                &ClipInspectorPanel::onTokenizerLoaded);
        connect(counter, &CaptionTokenCounter::unavailable, this,
                &ClipInspectorPanel::onTokenizerUnavailable);
    }
    refresh();
}

void ClipInspectorPanel::setStatusActions(QAction* accept, QAction* needsReview, QAction* reject) {
    m_acceptButton->setDefaultAction(accept);
    m_reviewButton->setDefaultAction(needsReview);
    m_rejectButton->setDefaultAction(reject);
}

void ClipInspectorPanel::setInsertTriggerWordAction(QAction* action) {
    m_triggerButton->setDefaultAction(action);
}

void ClipInspectorPanel::setTagSuggestions(const QStringList& tags) {
    if (auto* model = qobject_cast<QStringListModel*>(m_tagsEdit->completer()->model()))
        model->setStringList(tags);
}

void ClipInspectorPanel::setTrainingClipSettings(const TrainingClipSettings& settings) {
    m_clipSettings = settings;
    m_refreshTimer.start();
}

void ClipInspectorPanel::showClips(const QVector<qint64>& clipIds) {
    commitPendingEdits();
    m_clipIds = clipIds;
    refresh();
}

QVector<qint64> ClipInspectorPanel::clipIds() const {
    return m_clipIds;
}

CaptionEditor* ClipInspectorPanel::captionEditor() const {
    return m_captionEditor;
}

VideoPlayerWidget* ClipInspectorPanel::player() const {
    return m_player;
}

void ClipInspectorPanel::commitPendingEdits() {
    m_captionEditor->commit();
    if (m_tagsEdit->isModified())
        onTagsEdited();
}

void ClipInspectorPanel::focusCaption() {
    if (m_captionEditor->isEnabled() && m_captionEditor->isVisible())
        m_captionEditor->setFocus(Qt::ShortcutFocusReason);
}

bool ClipInspectorPanel::insertTriggerWord(const QString& word) {
    if (m_clipIds.size() != 1 || word.isEmpty() || !m_captionEditor->isEnabled())
        return false;
    m_captionEditor->setFocus(Qt::ShortcutFocusReason);
    m_captionEditor->insertWord(word);
    return true;
}

QVector<ClipRecord> ClipInspectorPanel::shownRecords() const {
    QVector<ClipRecord> records;
    if (!m_model)
        return records;
    for (const qint64 id : m_clipIds) {
        const int row = m_model->rowOfClip(id);
        if (row >= 0)
            records.append(m_model->record(row));
    }
    return records;
}

void ClipInspectorPanel::refresh() {
    m_refreshTimer.stop();
    const QVector<ClipRecord> records = shownRecords();
    if (records.isEmpty()) {
        m_clipIds.clear();
        m_openPath.clear();
        m_player->closeClip();
        m_captionEditor->setCaption(QString());
        m_stack->setCurrentWidget(m_emptyLabel);
        return;
    }
    m_stack->setCurrentWidget(m_content);
    if (records.size() == 1)
        showSingle(records.constFirst());
    else
        showSeveral(records);
}

void ClipInspectorPanel::showSingle(const ClipRecord& clip) {
    m_titleLabel->setText(clip.fileName());
    m_titleLabel->setToolTip(QDir::toNativeSeparators(clip.path));
    const QLocale locale;
    QStringList facts;
    if (clip.width > 0 && clip.height > 0)
        facts.append(tr("%1×%2").arg(clip.width).arg(clip.height));
    if (clip.isImage) {
        facts.append(tr("still image"));
    } else {
        facts.append(clip.trimmedFrameCount() == 1 ? tr("1 frame")
                                                   : tr("%1 frames").arg(clip.trimmedFrameCount()));
        if (clip.fps > 0.0)
            facts.append(tr("%1 fps").arg(locale.toString(clip.fps, 'g', 4)));
        facts.append(tr("%1 s").arg(locale.toString(clip.trimmedDurationSeconds(), 'f', 1)));
    }
    if (m_model) {
        // The bucket of the Train form's next run, and what fitting the clip into it does.
        TrainingClipSettings settings = m_clipSettings;
        settings.buckets = m_model->bucketConfig();
        const BucketPreview::Placement placement = BucketPreview::place(clip, settings.buckets);
        QString bucket = placement.placed() ? BucketPreview::bucketText(placement.assignment.frames,
                                                                        placement.assignment.height,
                                                                        placement.assignment.width)
                                            : BucketPreview::causeText(placement.cause);
        const TrainingClipPlan plan = TrainingClipPlan::forClips({clip}, settings);
        const TrainingClipPlan::Fate fate =
            plan.clips().isEmpty() ? TrainingClipPlan::Fate::None : plan.clips().first().fate;
        if (fate == TrainingClipPlan::Fate::Stretched)
            bucket = tr("%1, stretched").arg(bucket);
        else if (fate == TrainingClipPlan::Fate::Cropped)
            bucket = tr("%1, cropped").arg(bucket);
        facts.append(bucket);
    }
    m_factsLabel->setText(facts.join(QStringLiteral(" · ")));
    m_problemLabel->setText(clip.isUsable() ? QString()
                                            : ClipRecord::problemText(clip.problem, clip.path));
    m_problemLabel->setVisible(!clip.isUsable());

    m_player->show();
    if (clip.path != m_openPath) {
        m_openPath = clip.path;
        m_player->openClip(clip.path);
    }
    // The saved trim, also when it changed under the player (Undo, another studio's edit);
    // setTrim() never reports back, so this saves nothing.
    m_player->setTrim(static_cast<int>(clip.trimIn),
                      clip.trimOut ? static_cast<int>(*clip.trimOut - 1) : -1);
    m_rating->setEnabled(true);
    m_rating->setRating(clip.rating);

    m_captionEditor->setEnabled(true);
    // What the user is typing wins over a refresh; it is committed in a moment anyway.
    if (!m_captionEditor->hasPendingEdit())
        m_captionEditor->setCaption(clip.caption);
    const bool longCaption = m_captionEditor->isShowingPart();
    m_captionEditor->setReadOnly(longCaption);
    m_captionEditor->setPlaceholderText(tr("Describe what happens in the clip…"));
    m_captionNote->setText(longCaption ? CaptionLength::editorNote(clip.caption.size())
                           : clip.captionNeedsCheck
                               ? CaptionDecoder::checkNote(clip.captionEncoding, clip.caption)
                               : QString());
    m_captionNote->setVisible(longCaption || clip.captionNeedsCheck);
    m_shortenCaptionButton->setVisible(longCaption);
    m_markCheckedButton->setVisible(clip.captionNeedsCheck);
    // Only a model that conditions on a frame uses it.
    const bool condition = !clip.isImage && m_clipSettings.imageToVideo;
    m_useFrameButton->setVisible(condition);
    m_clearFrameButton->setVisible(condition && clip.conditionFrame.has_value());
    m_conditionLabel->setVisible(condition);
    m_conditionLabel->setText(
        clip.conditionFrame
            ? tr("Image-to-video condition: frame %1").arg(*clip.conditionFrame)
            : tr("Image-to-video condition: the first frame used (%1)").arg(clip.trimIn));

    m_tagsEdit->setEnabled(true);
    if (!m_tagsEdit->hasFocus() || !m_tagsEdit->isModified()) {
        m_tagsEdit->setText(clip.tags.join(QStringLiteral(", ")));
        m_tagsEdit->setModified(false);
    }
    m_tagsEdit->setPlaceholderText(tr("Tags, separated by commas"));
    updateTokenCount();
    applyReadOnly();
}

void ClipInspectorPanel::showSeveral(const QVector<ClipRecord>& clips) {
    m_titleLabel->setText(tr("%1 clips selected").arg(clips.size()));
    m_titleLabel->setToolTip(QString());
    int problems = 0;
    bool sameRating = true;
    for (const ClipRecord& clip : clips) {
        problems += clip.isUsable() ? 0 : 1;
        sameRating = sameRating && clip.rating == clips.constFirst().rating;
    }
    m_factsLabel->setText(tr("Status and rating apply to every selected clip; the Dataset menu "
                             "has the other bulk edits."));
    m_problemLabel->setText(
        problems == 1 ? tr("1 of them cannot be used (a missing or damaged file).")
                      : tr("%1 of them cannot be used (missing or damaged files).").arg(problems));
    m_problemLabel->setVisible(problems > 0);
    m_openPath.clear();
    m_player->closeClip();
    m_player->hide();
    m_rating->setEnabled(true);
    if (sameRating)
        m_rating->setRating(clips.constFirst().rating);
    else
        m_rating->setMixed(true);
    m_captionEditor->setCaption(QString());
    m_captionEditor->setReadOnly(true);
    m_captionEditor->setEnabled(false);
    m_captionEditor->setPlaceholderText(
        tr("Select one clip to edit its caption, or use Find and Replace (Ctrl+H) for all of "
           "them."));
    m_captionNote->hide();
    m_shortenCaptionButton->hide();
    m_markCheckedButton->hide();
    m_useFrameButton->hide();
    m_clearFrameButton->hide();
    m_conditionLabel->hide();
    m_tagsEdit->clear();
    m_tagsEdit->setEnabled(false);
    m_tagsEdit->setPlaceholderText(tr("Use Add Tags… in the Dataset menu for several clips"));
    updateTokenCount();
    applyReadOnly();
}

void ClipInspectorPanel::setReadOnly(bool readOnly) {
    if (m_readOnly == readOnly)
        return;
    m_readOnly = readOnly;
    if (!m_readOnly)
        m_openPath.clear(); // showSingle offers the editing again
    refresh();
}

void ClipInspectorPanel::applyReadOnly() {
    for (QWidget* control :
         {static_cast<QWidget*>(m_markCheckedButton), static_cast<QWidget*>(m_shortenCaptionButton),
          static_cast<QWidget*>(m_useFrameButton), static_cast<QWidget*>(m_clearFrameButton),
          static_cast<QWidget*>(m_triggerButton)})
        control->setEnabled(!m_readOnly);
    m_tagsEdit->setReadOnly(m_readOnly);
    if (!m_readOnly)
        return;
    m_rating->setEnabled(false);
    m_captionEditor->setReadOnly(true);
}

void ClipInspectorPanel::updateTokenCount() {
    const bool ready = m_tokenCounter && m_tokenCounter->isReady();
    const bool single = m_clipIds.size() == 1;
    m_tokenLabel->setVisible(ready && single);
    m_tokenNote->setVisible(!ready && single);
    if (!ready) {
        m_tokenNote->setText(tr("No token count"));
        m_tokenNote->setToolTip(
            m_tokenizerProblem.isEmpty()
                ? tr("The token count appears when the project holds a model with its "
                     "tokenizer (models/<name>/tokenizer).")
                : tr("The token count is unavailable: %1").arg(m_tokenizerProblem));
        return;
    }
    // Of what is shown: a caption shown in part is far past any limit anyway.
    const int count = m_tokenCounter->countTokens(m_captionEditor->toPlainText());
    const int limit = m_tokenCounter->tokenLimit();
    m_tokenLabel->setText(tr("%1 / %2 tokens").arg(count).arg(limit));
    m_tokenLabel->setToolTip(
        count > limit
            ? tr("Too long for %1: the text encoder reads only the first %2 tokens, so the end "
                 "of this caption is cut off.")
                  .arg(m_tokenCounter->modelName())
                  .arg(limit)
            : tr("Counted with the tokenizer of %1, whose text encoder reads %2 tokens.")
                  .arg(m_tokenCounter->modelName())
                  .arg(limit));
    m_tokenLabel->setStyleSheet(count > limit ? QStringLiteral("color: #c94040; font-weight: bold;")
                                              : QString());
}

void ClipInspectorPanel::onCaptionCommitted(const QString& text) {
    if (m_curation && m_clipIds.size() == 1 && !m_readOnly)
        m_curation->setCaption(m_clipIds.constFirst(), text);
}

void ClipInspectorPanel::onShortenCaption() {
    if (m_curation && m_clipIds.size() == 1 && !m_readOnly && m_captionEditor->isShowingPart())
        m_curation->setCaption(m_clipIds.constFirst(), m_captionEditor->toPlainText());
}

void ClipInspectorPanel::onTagsEdited() {
    if (!m_tagsEdit->isModified() || !m_curation || m_clipIds.size() != 1 || m_readOnly)
        return;
    m_tagsEdit->setModified(false);
    m_curation->setTags(m_clipIds.constFirst(),
                        m_tagsEdit->text().split(QLatin1Char(','), Qt::SkipEmptyParts));
}

void ClipInspectorPanel::onTrimChanged(int in, int out) {
    if (!m_curation || m_clipIds.size() != 1 || m_player->clipPath() != m_openPath)
        return;
    if (m_readOnly) {
        // The marks go back to the saved trim: nothing is changed here.
        const QVector<ClipRecord> shown = shownRecords();
        if (shown.size() == 1)
            m_player->setTrim(static_cast<int>(shown.constFirst().trimIn),
                              shown.constFirst().trimOut
                                  ? static_cast<int>(*shown.constFirst().trimOut - 1)
                                  : -1);
        return;
    }
    const int lastFrame = m_player->engine()->frameCount() - 1;
    std::optional<qint64> trimOut;
    if (out >= 0 && out < lastFrame)
        trimOut = out + 1;
    m_curation->setTrim(m_clipIds.constFirst(), in, trimOut);
}

void ClipInspectorPanel::onRatingEdited(int rating) {
    if (m_curation && !m_clipIds.isEmpty() && !m_readOnly)
        m_curation->setRating(m_clipIds, rating);
}

void ClipInspectorPanel::onTokenizerLoaded() {
    m_tokenizerProblem.clear();
    updateTokenCount();
}

void ClipInspectorPanel::onTokenizerUnavailable(const QString& reason) {
    m_tokenizerProblem = reason;
    updateTokenCount();
}

void ClipInspectorPanel::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    const int side = m_statusRows->itemAt(0)->sizeHint().width() +
                     m_statusRows->itemAt(1)->sizeHint().width() + 8;
    const auto direction = width() >= side ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
    if (m_statusRows->direction() != direction)
        m_statusRows->setDirection(direction);
}

void ClipInspectorPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange) {
        retranslateUi();
        refresh();
    }
    QWidget::changeEvent(event);
}

void ClipInspectorPanel::retranslateUi() {
    m_emptyLabel->setText(tr("Select a clip to play it, trim it and edit its caption.\n\n"
                             "Arrow keys move through the clips; A accepts, R rejects, U marks "
                             "for review, 1–5 rate, Enter or Ctrl+E edits the caption."));
    m_statusLabel->setText(tr("Status:"));
    m_ratingLabel->setText(tr("Rating:"));
    m_captionLabel->setText(tr("&Caption"));
    m_shortenCaptionButton->setText(
        tr("Keep the First %1 Characters")
            .arg(QLocale().toString(static_cast<qint64>(CaptionLength::kEditableLength))));
    m_shortenCaptionButton->setToolTip(
        tr("Cuts the caption after the part shown, so it can be edited here. Undo brings the "
           "whole caption back."));
    m_markCheckedButton->setText(tr("Mark as Checked"));
    m_useFrameButton->setText(tr("Use This Frame"));
    m_useFrameButton->setToolTip(tr("Condition this clip on the frame on screen when training "
                                    "an image-to-video model; its picture also serves as a "
                                    "validation image."));
    m_clearFrameButton->setText(tr("First Frame"));
    m_clearFrameButton->setToolTip(tr("Condition on the first frame used again."));
    m_tagsLabel->setText(tr("&Tags:"));
}
