#pragma once

#include <QPointer>
#include <QSet>
#include <QStyledItemDelegate>

class ThumbnailCache;

// Paints one clip of the thumbnail grid: its thumbnail (asked of the ThumbnailCache when the
// item is painted, which is what makes visible items come first), its name, a status badge,
// its rating, and a warning flag on files with a problem or without a caption. Items whose
// thumbnail is not ready yet get a plain frame; the view repaints when it arrives.
class ClipGridDelegate : public QStyledItemDelegate {
    Q_OBJECT

public:
    static constexpr int kThumbnailSize = 160; // the longest side, in pixels
    static constexpr int kItemWidth = 176;
    static constexpr int kItemHeight = 156;

    explicit ClipGridDelegate(QObject* parent = nullptr);

    void setThumbnailCache(ThumbnailCache* cache);
    // Content hashes asked for and not delivered yet, so the view can rank them down once
    // they scroll out of sight.
    QSet<QString> pendingKeys() const;
    void forgetPending(const QString& key);

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

    // Where the thumbnail sits inside an item's rectangle.
    static QRect thumbnailRect(const QRect& itemRect);

private:
    void paintThumbnail(QPainter* painter, const QRect& area, const QModelIndex& index,
                        const QPalette& palette) const;
    void paintBadges(QPainter* painter, const QRect& area, const QModelIndex& index) const;

    QPointer<ThumbnailCache> m_cache;
    mutable QSet<QString> m_pending;
};
