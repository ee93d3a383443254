#include "ui/dataset/ClipGridView.h"

#include "app/dataset/ClipTableModel.h"
#include "app/playback/ThumbnailCache.h"
#include "app/playback/ThumbnailStore.h"
#include "ui/dataset/ClipGridDelegate.h"

#include <QHelpEvent>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>

namespace {

constexpr int kCaptionToolTipLength = 300;

} // namespace

ClipGridView::ClipGridView(QWidget* parent)
    : QListView(parent)
    , m_delegate(new ClipGridDelegate(this)) {
    setViewMode(QListView::IconMode);
    setMovement(QListView::Static);
    setResizeMode(QListView::Adjust);
    setFlow(QListView::LeftToRight);
    setWrapping(true);
    setUniformItemSizes(true);
    setLayoutMode(QListView::Batched);
    setBatchSize(kLayoutBatchSize);
    setSpacing(4);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setMouseTracking(true);
    setItemDelegate(m_delegate);
    setModelColumn(ClipTableModel::NameColumn);

    m_repaintTimer.setSingleShot(true);
    m_repaintTimer.setInterval(kRepaintDelayMs);
    connect(&m_repaintTimer, &QTimer::timeout, viewport(), qOverload<>(&QWidget::update));
    m_settleTimer.setSingleShot(true);
    m_settleTimer.setInterval(kSettleDelayMs);
    connect(&m_settleTimer, &QTimer::timeout, this, &ClipGridView::rankThumbnails);
}

void ClipGridView::setThumbnailCache(ThumbnailCache* cache) {
    if (m_cache)
        m_cache->disconnect(this);
    m_cache = cache;
    m_delegate->setThumbnailCache(cache);
    if (cache) {
        connect(cache, &ThumbnailCache::thumbnailReady, this,
                [this](const QString& key, int, const Thumbnail&) { onThumbnailReady(key); });
    }
    viewport()->update();
}

QPair<int, int> ClipGridView::visibleRows() const {
    if (!model() || model()->rowCount() == 0)
        return {-1, -1};
    const QRect area = viewport()->rect();
    // Items are laid out row by row in model order, so the corners bound what is on screen.
    QModelIndex first = indexAt(area.topLeft() + QPoint(spacing() + 2, spacing() + 2));
    if (!first.isValid())
        first = model()->index(0, modelColumn());
    QModelIndex last = indexAt(area.bottomRight() - QPoint(spacing() + 2, spacing() + 2));
    int lastRow = last.isValid() ? last.row() : -1;
    if (lastRow < 0) {
        // The bottom-right corner lies past the last item of a short last line.
        lastRow = first.row();
        for (int row = first.row(); row < model()->rowCount(); ++row) {
            if (!visualRect(model()->index(row, modelColumn())).intersects(area))
                break;
            lastRow = row;
        }
    }
    return {first.row(), lastRow};
}

bool ClipGridView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QModelIndex index = indexAt(help->pos());
        if (!index.isValid()) {
            QToolTip::hideText();
            return true;
        }
        QStringList lines{index.data(Qt::ToolTipRole).toString()};
        const QString problem =
            index.siblingAtColumn(ClipTableModel::ProblemColumn).data(Qt::ToolTipRole).toString();
        if (!problem.isEmpty())
            lines.append(problem);
        QString caption =
            index.siblingAtColumn(ClipTableModel::CaptionColumn).data(Qt::EditRole).toString();
        if (caption.size() > kCaptionToolTipLength)
            caption = caption.left(kCaptionToolTipLength) + QStringLiteral("…");
        if (!caption.isEmpty())
            lines.append(QString() + QLatin1Char('\n') + caption);
        QToolTip::showText(help->globalPos(), lines.join(QLatin1Char('\n')), viewport(),
                           visualRect(index));
        return true;
    }
    return QListView::viewportEvent(event);
}

void ClipGridView::resizeEvent(QResizeEvent* event) {
    QListView::resizeEvent(event);
    m_settleTimer.start();
}

void ClipGridView::scrollContentsBy(int dx, int dy) {
    QListView::scrollContentsBy(dx, dy);
    m_settleTimer.start();
}

void ClipGridView::onThumbnailReady(const QString& key) {
    m_delegate->forgetPending(key);
    if (!m_repaintTimer.isActive())
        m_repaintTimer.start();
}

void ClipGridView::rankThumbnails() {
    if (!m_cache || !model())
        return;
    const auto [first, last] = visibleRows();
    if (first < 0)
        return;
    QSet<QString> visibleKeys;
    for (int row = first; row <= last; ++row)
        visibleKeys.insert(model()->index(row, 0).data(ClipTableModel::ContentHashRole).toString());
    const QSet<QString> pending = m_delegate->pendingKeys();
    for (int row = 0; row < model()->rowCount() && !pending.isEmpty(); ++row) {
        const QModelIndex index = model()->index(row, 0);
        const QString key = index.data(ClipTableModel::ContentHashRole).toString();
        if (!pending.contains(key) || visibleKeys.contains(key))
            continue;
        // Asking again with a lower priority re-ranks the queued request.
        m_cache->request(key, index.data(ClipTableModel::PathRole).toString(),
                         ClipGridDelegate::kThumbnailSize, ThumbnailCache::Priority::Background);
    }
    const int screenful = last - first + 1;
    const int prefetchEnd = std::min(model()->rowCount(), last + 1 + screenful);
    for (int row = last + 1; row < prefetchEnd; ++row) {
        const QModelIndex index = model()->index(row, 0);
        const QString key = index.data(ClipTableModel::ContentHashRole).toString();
        if (!ThumbnailStore::isValidKey(key))
            continue;
        if (m_cache
                ->request(key, index.data(ClipTableModel::PathRole).toString(),
                          ClipGridDelegate::kThumbnailSize, ThumbnailCache::Priority::Background)
                .isNull())
            m_delegate->forgetPending(key);
    }
}
