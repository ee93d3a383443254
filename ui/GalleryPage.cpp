#include "ui/GalleryPage.h"

#include "app/PlaybackEngine.h"
#include "app/Project.h"
#include "app/ThumbnailCache.h"
#include "app/TrainingRuns.h"
#include "ui/EmptyStateWidget.h"
#include "ui/VideoPlayerWidget.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QDateTime>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace {

constexpr int kVideoRole = Qt::UserRole;
constexpr int kThumbnailKeyRole = Qt::UserRole + 1;
constexpr int kThumbnailSize = 128; // longest side

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
    m_table->setIconSize(QSize(kThumbnailSize, kThumbnailSize * 2 / 3));
    m_table->verticalHeader()->setDefaultSectionSize(kThumbnailSize * 2 / 3 + 8);
    m_playingLabel->setObjectName(QStringLiteral("galleryPlayingLabel"));
    m_playingLabel->setWordWrap(true);
    m_leftPlayer->setObjectName(QStringLiteral("galleryLeftPlayer"));
    m_rightPlayer->setObjectName(QStringLiteral("galleryRightPlayer"));
    m_rightPlayer->hide();

    auto* chooser = new QHBoxLayout;
    chooser->addWidget(m_runLabel);
    chooser->addWidget(m_runCombo, 1);
    chooser->addWidget(m_comparisonLabel);
    chooser->addWidget(m_comparisonCombo, 1);
    chooser->addWidget(m_compareButton);
    auto* players = new QWidget;
    auto* playerLayout = new QHBoxLayout(players);
    playerLayout->setContentsMargins(0, 0, 0, 0);
    playerLayout->addWidget(m_leftPlayer);
    playerLayout->addWidget(m_rightPlayer);
    auto* splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_table);
    splitter->addWidget(players);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 2);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(chooser);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_playingLabel);
    m_states->addWidget(m_emptyState);
    m_states->addWidget(content);
    setProjectContent(m_states);

    connect(m_runCombo, &QComboBox::activated, this,
            [this] { showRun(m_runCombo->currentData().toLongLong()); });
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
    m_leftPlayer->closeClip();
    m_rightPlayer->closeClip();
    m_rightPlayer->hide();
    if (m_runs) {
        connect(m_runs, &TrainingRuns::validationReady, this, &GalleryPage::onValidationReady);
        connect(m_runs, &TrainingRuns::runAdded, this, &GalleryPage::reloadRuns);
    }
    reloadRuns();
    // Newest run with videos first.
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
    m_rightPlayer->show();
    m_rightPlayer->openClip(right.path);
    m_leftPlayer->openClip(left.path);
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
    std::map<qint64, int> steps; // step -> row, filled below
    for (const ValidationVideo& video : m_videos) {
        prompts[video.promptIndex] = video.prompt;
        steps[video.step] = 0;
    }
    for (const ValidationVideo& video : m_comparisonVideos) {
        comparisonPrompts[video.promptIndex] = video.prompt;
        steps[video.step] = 0;
    }
    QVector<Column> columns;
    for (const auto& [index, prompt] : prompts)
        columns.append({false, index, prompt});
    for (const auto& [index, prompt] : comparisonPrompts)
        columns.append({true, index, prompt});
    m_table->clear();
    m_table->setRowCount(static_cast<int>(steps.size()));
    m_table->setColumnCount(static_cast<int>(columns.size()));
    const QString runName = m_runCombo->currentText();
    const QString otherName = m_comparisonCombo->currentText();
    for (int column = 0; column < columns.size(); ++column) {
        const Column& c = columns.at(column);
        auto* header = new QTableWidgetItem(
            tr("%1 · prompt %2").arg(c.comparison ? otherName : runName).arg(c.promptIndex + 1));
        header->setToolTip(c.prompt);
        m_table->setHorizontalHeaderItem(column, header);
    }
    int row = 0;
    for (auto step = steps.rbegin(); step != steps.rend(); ++step, ++row) {
        step->second = row;
        m_table->setVerticalHeaderItem(row, new QTableWidgetItem(tr("Step %1").arg(step->first)));
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
            m_table->setItem(steps.at(video.step), column, item);
        }
    };
    for (const ValidationVideo& video : m_videos)
        place(video, false);
    for (const ValidationVideo& video : m_comparisonVideos)
        place(video, true);
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
    if (m_runId == 0 || m_runId == video.runId) {
        if (m_runId == 0)
            m_runId = video.runId;
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
    m_rightPlayer->closeClip();
    m_rightPlayer->hide();
    m_leftPlayer->openClip(video.path);
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
