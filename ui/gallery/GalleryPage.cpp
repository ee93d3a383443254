#include "ui/gallery/GalleryPage.h"

#include "app/playback/PlaybackEngine.h"
#include "app/playback/ThumbnailCache.h"
#include "app/project/Project.h"
#include "app/runs/TrainingRuns.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/widgets/EmptyStateWidget.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace {

constexpr int kVideoRole = Qt::UserRole;
constexpr int kThumbnailKeyRole = Qt::UserRole + 1;
constexpr int kThumbnailSize = 128; // longest side
constexpr int kMostGridMinimumWidth = 480;

// Thumbnails are stored by content; a validation video is identified by its path, size and
// time instead (hashing every video would cost more than decoding its first frame).
QString thumbnailKey(const QFileInfo& file) {
    const QByteArray identity = file.absoluteFilePath().toUtf8() + '|' +
                                QByteArray::number(file.size()) + '|' +
                                QByteArray::number(file.lastModified().toMSecsSinceEpoch());
    return QString::fromLatin1(
        QCryptographicHash::hash(identity, QCryptographicHash::Sha1).toHex());
}

// Columns: every prompt index of the run, then (when comparing) every prompt of the other.
struct Column {
    bool comparison = false;
    int promptIndex = 0;
    QString prompt;
};

// The grid's rows, newest first: the step of each run's validation in that row (-1: none).
// Runs validated at the same steps share rows by step; otherwise the n-th validation of one
// run sits beside the n-th of the other, so a run validated every 50 steps and one validated
// every 100 still line up instead of never meeting in a row.
struct Rows {
    QVector<qint64> steps;           // the run's
    QVector<qint64> comparisonSteps; // the comparison run's
    bool byStep = true;
};

std::vector<qint64> stepsOf(const QVector<ValidationVideo>& videos) {
    std::set<qint64> steps;
    for (const ValidationVideo& video : videos)
        steps.insert(video.step);
    return {steps.begin(), steps.end()};
}

Rows alignRows(const std::vector<qint64>& run, const std::vector<qint64>& comparison) {
    Rows rows;
    rows.byStep = comparison.empty() || run.empty() || run == comparison;
    if (rows.byStep) {
        std::set<qint64> all(run.begin(), run.end());
        all.insert(comparison.begin(), comparison.end());
        const std::set<qint64> inRun(run.begin(), run.end());
        const std::set<qint64> inComparison(comparison.begin(), comparison.end());
        for (auto step = all.rbegin(); step != all.rend(); ++step) {
            rows.steps.append(inRun.count(*step) ? *step : -1);
            rows.comparisonSteps.append(inComparison.count(*step) ? *step : -1);
        }
        return rows;
    }
    const std::size_t count = std::max(run.size(), comparison.size());
    for (std::size_t n = count; n-- > 0;) {
        rows.steps.append(n < run.size() ? run[n] : -1);
        rows.comparisonSteps.append(n < comparison.size() ? comparison[n] : -1);
    }
    return rows;
}

} // namespace

GalleryPage::GalleryPage(QWidget* parent)
    : StudioPage(parent)
    , m_states(new QStackedWidget)
    , m_emptyState(new EmptyStateWidget)
    , m_runLabel(new QLabel)
    , m_runCombo(new QComboBox)
    , m_comparisonLabel(new QLabel)
    , m_comparisonCombo(new QComboBox)
    , m_compareButton(new QPushButton)
    , m_table(new QTableWidget)
    , m_splitter(new QSplitter(Qt::Horizontal))
    , m_players(new QWidget)
    , m_playingLabel(new QLabel)
    , m_leftPlayer(new VideoPlayerWidget)
    , m_rightPlayer(new VideoPlayerWidget) {
    setObjectName(QStringLiteral("galleryPage"));
    m_emptyState->setObjectName(QStringLiteral("projectEmptyState"));
    m_emptyState->setIcon(QIcon(QStringLiteral(":/icons/gallery.svg")));
    m_runCombo->setObjectName(QStringLiteral("galleryRunCombo"));
    m_comparisonCombo->setObjectName(QStringLiteral("galleryComparisonCombo"));
    m_compareButton->setObjectName(QStringLiteral("sideBySideButton"));
    m_table->setObjectName(QStringLiteral("galleryTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    // Run names differ at their ends ("Run 1128-1612"): a cut keeps both.
    m_table->horizontalHeader()->setTextElideMode(Qt::ElideMiddle);
    m_table->setIconSize(QSize(kThumbnailSize, kThumbnailSize * 2 / 3));
    m_table->verticalHeader()->setDefaultSectionSize(kThumbnailSize * 2 / 3 + 8);
    m_playingLabel->setObjectName(QStringLiteral("galleryPlayingLabel"));
    m_playingLabel->setWordWrap(true);
    m_leftPlayer->setObjectName(QStringLiteral("galleryLeftPlayer"));
    m_rightPlayer->setObjectName(QStringLiteral("galleryRightPlayer"));
    m_leftPlayer->setControls(VideoPlayerWidget::Controls::PlaybackOnly);
    m_rightPlayer->setControls(VideoPlayerWidget::Controls::PictureOnly);
    m_rightPlayer->hide();

    auto* chooser = new QHBoxLayout;
    chooser->addWidget(m_runLabel);
    chooser->addWidget(m_runCombo, 1);
    chooser->addWidget(m_comparisonLabel);
    chooser->addWidget(m_comparisonCombo, 1);
    chooser->addWidget(m_compareButton);
    m_players->setObjectName(QStringLiteral("galleryPlayers"));
    auto* pair = new QHBoxLayout(m_players);
    pair->setContentsMargins(0, 0, 0, 0);
    pair->addWidget(m_leftPlayer);
    pair->addWidget(m_rightPlayer);
    // The grid beside the player rather than above it: the grid keeps the page's full height
    // for its rows of steps, and the player is hidden until a video is chosen.
    m_splitter->setObjectName(QStringLiteral("gallerySplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_table);
    m_splitter->addWidget(m_players);
    m_players->hide();
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(chooser);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_playingLabel);
    m_states->addWidget(m_emptyState);
    m_states->addWidget(content);
    setProjectContent(m_states);

    connect(m_runCombo, &QComboBox::activated, this, [this] {
        m_followNewest = false;
        showRun(m_runCombo->currentData().toLongLong());
    });
    connect(m_comparisonCombo, &QComboBox::activated, this,
            [this] { setComparisonRun(m_comparisonCombo->currentData().toLongLong()); });
    connect(m_table, &QTableWidget::cellClicked, this, &GalleryPage::onCellActivated);
    connect(m_compareButton, &QPushButton::clicked, this, &GalleryPage::onCompareClicked);
    // The right player follows the left one frame for frame: same index, same moment.
    connect(m_leftPlayer->engine(), &PlaybackEngine::frameShown, this,
            [this](const QImage&, int frameIndex) {
                if (m_rightPlayer->isVisible() && m_rightPlayer->currentFrameIndex() != frameIndex)
                    m_rightPlayer->engine()->seek(frameIndex);
            });
    retranslateUi();
    updateVisibleState();
}

GalleryPage::~GalleryPage() = default;

void GalleryPage::setTrainingRuns(TrainingRuns* runs) {
    if (m_runs)
        disconnect(m_runs, nullptr, this, nullptr);
    m_runs = runs;
    m_thumbnails.reset();
    if (m_runs) {
        m_thumbnails = std::make_unique<ThumbnailCache>(
            ThumbnailCache::folderIn(m_runs->project()->cacheFolder()));
        connect(m_thumbnails.get(), &ThumbnailCache::thumbnailReady, this,
                &GalleryPage::onThumbnailReady);
    }
    m_runId = m_comparisonRunId = 0;
    m_videos.clear();
    m_comparisonVideos.clear();
    m_followNewest = true;
    m_leftPlayer->closeClip();
    m_rightPlayer->closeClip();
    m_rightPlayer->hide();
    m_players->hide();
    if (m_runs) {
        connect(m_runs, &TrainingRuns::validationReady, this, &GalleryPage::onValidationReady);
        connect(m_runs, &TrainingRuns::runAdded, this, &GalleryPage::reloadRuns);
        connect(m_runs, &TrainingRuns::runDeleted, this, &GalleryPage::onRunDeleted);
    }
    reloadRuns();
    showNewestRunWithVideos();
}

void GalleryPage::showNewestRunWithVideos() {
    if (m_runs) {
        for (const RunHistoryRow& row : m_runs->history()) {
            if (!m_runs->validations(row.id).isEmpty()) {
                showRun(row.id);
                break;
            }
        }
    }
    updateVisibleState();
}

void GalleryPage::onRunDeleted(qint64 runId) {
    if (runId == m_comparisonRunId)
        setComparisonRun(0);
    reloadRuns();
    if (runId != m_runId)
        return;
    m_leftPlayer->closeClip();
    m_rightPlayer->closeClip();
    m_players->hide();
    m_playingLabel->clear();
    m_runId = 0;
    m_videos.clear();
    m_followNewest = true;
    rebuildTable();
    showNewestRunWithVideos();
}

void GalleryPage::showRun(qint64 runId) {
    m_runId = runId;
    m_videos = m_runs && runId ? m_runs->validations(runId) : QVector<ValidationVideo>();
    const int index = m_runCombo->findData(runId);
    if (index >= 0)
        m_runCombo->setCurrentIndex(index);
    rebuildTable();
    updateVisibleState();
}

void GalleryPage::setComparisonRun(qint64 runId) {
    m_comparisonRunId = runId == m_runId ? 0 : runId;
    m_comparisonVideos = m_runs && m_comparisonRunId ? m_runs->validations(m_comparisonRunId)
                                                     : QVector<ValidationVideo>();
    const int index = m_comparisonCombo->findData(m_comparisonRunId);
    m_comparisonCombo->setCurrentIndex(index < 0 ? 0 : index);
    rebuildTable();
}

ValidationVideo GalleryPage::videoAt(int row, int column) const {
    const QTableWidgetItem* item = m_table->item(row, column);
    return item ? item->data(kVideoRole).value<ValidationVideo>() : ValidationVideo();
}

QTableWidget* GalleryPage::table() const {
    return m_table;
}

bool GalleryPage::compareCells(int rowA, int columnA, int rowB, int columnB) {
    const ValidationVideo left = videoAt(rowA, columnA);
    const ValidationVideo right = videoAt(rowB, columnB);
    if (left.path.isEmpty() || right.path.isEmpty())
        return false;
    showPlayers(true);
    m_rightPlayer->openClip(right.path);
    m_leftPlayer->openClipAndPlay(left.path);
    m_playingLabel->setText(tr("Left: step %1, “%2”. Right: step %3, “%4”.")
                                .arg(left.step)
                                .arg(left.prompt)
                                .arg(right.step)
                                .arg(right.prompt));
    return true;
}

VideoPlayerWidget* GalleryPage::leftPlayer() const {
    return m_leftPlayer;
}

VideoPlayerWidget* GalleryPage::rightPlayer() const {
    return m_rightPlayer;
}

void GalleryPage::keepColumnTitlesReadable() {
    // Side by side, the players take what the splitter gives them, and once their videos load
    // they would take the grid's columns down to a few pixels: the grid keeps the width of its
    // titles (up to half a laptop window; past that its columns scroll).
    const QHeaderView* header = m_table->horizontalHeader();
    // The vertical scroll bar counts whether or not it shows now: more steps bring it.
    int width = m_table->verticalHeader()->sizeHint().width() + 2 * m_table->frameWidth() +
                m_table->verticalScrollBar()->sizeHint().width();
    for (int column = 0; column < m_table->columnCount(); ++column)
        width += header->sectionSizeHint(column);
    m_table->setMinimumWidth(std::min(width, kMostGridMinimumWidth));
}

qint64 GalleryPage::shownRun() const {
    return m_runId;
}

void GalleryPage::showPlayers(bool sideBySide) {
    m_rightPlayer->setVisible(sideBySide);
    if (!sideBySide)
        m_rightPlayer->closeClip();
    const bool wasHidden = m_players->isHidden();
    m_players->show();
    // A pair of videos needs more width than one; the grid keeps at least a third.
    const int total = std::max(1, m_splitter->width());
    const int players = total * (sideBySide ? 2 : 1) / (sideBySide ? 3 : 2);
    if (wasHidden || sideBySide)
        m_splitter->setSizes({total - players, players});
}

void GalleryPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Gallery"), tr("Validation videos from your training runs"));
    m_emptyState->setTitle(tr("No validation videos yet"));
    m_emptyState->setBody(
        tr("Validation videos will appear here during training: each time a run checks its "
           "progress, the videos it generates from your prompts are added to this page."));
    m_runLabel->setText(tr("Run"));
    m_comparisonLabel->setText(tr("Beside"));
    m_compareButton->setText(tr("Side by Side"));
    m_compareButton->setToolTip(tr("Select two videos (Ctrl+click) to play them next to each "
                                   "other, frame for frame."));
    if (m_comparisonCombo->count() > 0)
        m_comparisonCombo->setItemText(0, tr("No second run"));
    rebuildTable();
}

void GalleryPage::reloadRuns() {
    m_runCombo->clear();
    m_comparisonCombo->clear();
    m_comparisonCombo->addItem(tr("No second run"), qint64(0));
    if (m_runs) {
        for (const RunHistoryRow& row : m_runs->history()) {
            m_runCombo->addItem(row.name, row.id);
            m_comparisonCombo->addItem(row.name, row.id);
        }
    }
    const int index = m_runCombo->findData(m_runId);
    if (index >= 0)
        m_runCombo->setCurrentIndex(index);
    const int comparison = m_comparisonCombo->findData(m_comparisonRunId);
    m_comparisonCombo->setCurrentIndex(comparison < 0 ? 0 : comparison);
}

void GalleryPage::rebuildTable() {
    std::map<int, QString> prompts;
    std::map<int, QString> comparisonPrompts;
    for (const ValidationVideo& video : m_videos)
        prompts[video.promptIndex] = video.prompt;
    for (const ValidationVideo& video : m_comparisonVideos)
        comparisonPrompts[video.promptIndex] = video.prompt;
    QVector<Column> columns;
    for (const auto& [index, prompt] : prompts)
        columns.append({false, index, prompt});
    for (const auto& [index, prompt] : comparisonPrompts)
        columns.append({true, index, prompt});
    const Rows rows = alignRows(stepsOf(m_videos), stepsOf(m_comparisonVideos));
    m_table->clear();
    m_table->setRowCount(static_cast<int>(rows.steps.size()));
    m_table->setColumnCount(static_cast<int>(columns.size()));
    const QString runName = m_runCombo->currentText();
    const QString otherName = m_comparisonCombo->currentText();
    for (int column = 0; column < columns.size(); ++column) {
        const Column& c = columns.at(column);
        // The prompt, then the run, on lines of their own: a narrow column cut "Run 1128-1612 ·
        // prompt 1" to "-1612 ·".
        auto* header = new QTableWidgetItem(
            tr("Prompt %1\n%2").arg(c.promptIndex + 1).arg(c.comparison ? otherName : runName));
        header->setToolTip(c.prompt);
        m_table->setHorizontalHeaderItem(column, header);
    }
    std::map<qint64, int> rowOfStep;
    std::map<qint64, int> rowOfComparisonStep;
    const QString none = QStringLiteral("–");
    for (int row = 0; row < rows.steps.size(); ++row) {
        const qint64 step = rows.steps.at(row);
        const qint64 other = rows.comparisonSteps.at(row);
        if (step >= 0)
            rowOfStep[step] = row;
        if (other >= 0)
            rowOfComparisonStep[other] = row;
        const QString label = rows.byStep ? tr("Step %1").arg(step >= 0 ? step : other)
                                          : tr("Step %1 · step %2")
                                                .arg(step >= 0 ? QString::number(step) : none,
                                                     other >= 0 ? QString::number(other) : none);
        m_table->setVerticalHeaderItem(row, new QTableWidgetItem(label));
    }
    auto place = [&](const ValidationVideo& video, bool comparison) {
        for (int column = 0; column < columns.size(); ++column) {
            const Column& c = columns.at(column);
            if (c.comparison != comparison || c.promptIndex != video.promptIndex)
                continue;
            auto* item = new QTableWidgetItem(
                QFileInfo::exists(video.path)
                    ? tr("▶ %1 s to render").arg(QLocale().toString(video.seconds, 'f', 1))
                    : tr("Missing: %1").arg(QFileInfo(video.path).fileName()));
            item->setData(kVideoRole, QVariant::fromValue(video));
            item->setToolTip(video.prompt);
            const QFileInfo file(video.path);
            if (m_thumbnails && file.exists()) {
                const QString key = thumbnailKey(file);
                item->setData(kThumbnailKeyRole, key);
                const Thumbnail thumbnail = m_thumbnails->request(key, video.path, kThumbnailSize);
                if (!thumbnail.isNull())
                    item->setIcon(QIcon(QPixmap::fromImage(thumbnail.image)));
            }
            const auto& rowOf = comparison ? rowOfComparisonStep : rowOfStep;
            m_table->setItem(rowOf.at(video.step), column, item);
        }
    };
    for (const ValidationVideo& video : m_videos)
        place(video, false);
    for (const ValidationVideo& video : m_comparisonVideos)
        place(video, true);
    keepColumnTitlesReadable();
}

void GalleryPage::onThumbnailReady(const QString& key, int size, const Thumbnail& thumbnail) {
    if (size != kThumbnailSize || thumbnail.isNull())
        return;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        for (int column = 0; column < m_table->columnCount(); ++column) {
            QTableWidgetItem* item = m_table->item(row, column);
            if (item && item->data(kThumbnailKeyRole).toString() == key)
                item->setIcon(QIcon(QPixmap::fromImage(thumbnail.image)));
        }
    }
}

void GalleryPage::onValidationReady(const ValidationVideo& video) {
    if (m_followNewest && video.runId > m_runId && video.runId != m_comparisonRunId) {
        reloadRuns();
        showRun(video.runId);
        return;
    }
    if (m_runId == video.runId) {
        m_videos.append(video);
    } else if (video.runId == m_comparisonRunId) {
        m_comparisonVideos.append(video);
    } else {
        return;
    }
    reloadRuns();
    rebuildTable();
    updateVisibleState();
}

void GalleryPage::onCellActivated(int row, int column) {
    const ValidationVideo video = videoAt(row, column);
    if (video.path.isEmpty() || !QFileInfo::exists(video.path))
        return;
    if (m_table->selectedItems().size() == 2)
        return; // choosing a pair for Side by Side
    showPlayers(false);
    m_leftPlayer->openClipAndPlay(video.path);
    m_playingLabel->setText(tr("Step %1, “%2”.").arg(video.step).arg(video.prompt));
}

void GalleryPage::onCompareClicked() {
    const QList<QTableWidgetItem*> items = m_table->selectedItems();
    if (items.size() != 2) {
        m_playingLabel->setText(tr("Select two videos (Ctrl+click) to compare them."));
        return;
    }
    compareCells(items.at(0)->row(), items.at(0)->column(), items.at(1)->row(),
                 items.at(1)->column());
}

void GalleryPage::updateVisibleState() {
    const bool hasVideos = !m_videos.isEmpty() || !m_comparisonVideos.isEmpty() ||
                           (m_runs && m_runCombo->count() > 0 && m_runId != 0);
    m_states->setCurrentIndex(hasVideos ? 1 : 0);
}
