#include "ui/dataset/ClipGridDelegate.h"

#include "app/dataset/ClipRecord.h"
#include "app/dataset/ClipTableModel.h"
#include "app/playback/ThumbnailCache.h"
#include "app/playback/ThumbnailStore.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace {

constexpr int kMargin = 4;
constexpr int kThumbnailHeight = 100;
constexpr int kBadgeRadius = 4;
constexpr QChar kFilledStar(0x2605);

QColor statusColor(ClipStatus status) {
    switch (status) {
    case ClipStatus::Accepted:
        return QColor(0x2e, 0x9d, 0x4f);
    case ClipStatus::Rejected:
        return QColor(0xc9, 0x40, 0x40);
    case ClipStatus::NeedsReview:
    case ClipStatus::Invalid:
        break;
    }
    return QColor(0xc0, 0x80, 0x18);
}

void drawPill(QPainter* painter, const QRect& rect, const QColor& fill, const QString& text) {
    QPainterPath path;
    path.addRoundedRect(rect, kBadgeRadius, kBadgeRadius);
    painter->fillPath(path, fill);
    painter->setPen(Qt::white);
    painter->drawText(rect, Qt::AlignCenter, text);
}

} // namespace

ClipGridDelegate::ClipGridDelegate(QObject* parent)
    : QStyledItemDelegate(parent) {}

void ClipGridDelegate::setThumbnailCache(ThumbnailCache* cache) {
    m_cache = cache;
    m_pending.clear();
}

QSet<QString> ClipGridDelegate::pendingKeys() const {
    return m_pending;
}

void ClipGridDelegate::forgetPending(const QString& key) {
    m_pending.remove(key);
}

QRect ClipGridDelegate::thumbnailRect(const QRect& itemRect) {
    return QRect(itemRect.left() + kMargin, itemRect.top() + kMargin,
                 itemRect.width() - 2 * kMargin, kThumbnailHeight);
}

QSize ClipGridDelegate::sizeHint(const QStyleOptionViewItem&, const QModelIndex&) const {
    return QSize(kItemWidth, kItemHeight);
}

void ClipGridDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing);
    const QPalette& palette = option.palette;
    const QRect item = option.rect.adjusted(1, 1, -1, -1);
    const bool selected = option.state & QStyle::State_Selected;
    if (selected) {
        QPainterPath path;
        path.addRoundedRect(item, 6, 6);
        painter->fillPath(path, palette.color(QPalette::Highlight));
    } else if (option.state & QStyle::State_MouseOver) {
        QPainterPath path;
        path.addRoundedRect(item, 6, 6);
        painter->fillPath(path, palette.color(QPalette::AlternateBase));
    }

    const QRect thumbnail = thumbnailRect(option.rect);
    paintThumbnail(painter, thumbnail, index, palette);
    paintBadges(painter, thumbnail, index);

    const QColor text = palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    const QFontMetrics metrics(option.font);
    const QRect nameRect(item.left() + kMargin, thumbnail.bottom() + 4, item.width() - 2 * kMargin,
                         metrics.height());
    painter->setFont(option.font);
    painter->setPen(text);
    painter->drawText(nameRect, Qt::AlignLeft | Qt::AlignVCenter,
                      metrics.elidedText(index.data(Qt::DisplayRole).toString(), Qt::ElideMiddle,
                                         nameRect.width()));

    const auto status = static_cast<ClipStatus>(index.data(ClipTableModel::StatusRole).toInt());
    QFont small = option.font;
    small.setPointSizeF(small.pointSizeF() * 0.85);
    painter->setFont(small);
    const QFontMetrics smallMetrics(small);
    const QString statusText = ClipRecord::statusText(status);
    const QRect statusRect(nameRect.left(), nameRect.bottom() + 4,
                           smallMetrics.horizontalAdvance(statusText) + 10,
                           smallMetrics.height() + 2);
    drawPill(painter, statusRect, statusColor(status), statusText);

    const int rating =
        index.siblingAtColumn(ClipTableModel::RatingColumn).data(Qt::EditRole).toInt();
    if (rating > 0) {
        painter->setPen(selected ? text : QColor(0xe0, 0xa0, 0x10));
        painter->drawText(QRect(statusRect.right() + 6, statusRect.top(),
                                nameRect.right() - statusRect.right() - 6, statusRect.height()),
                          Qt::AlignRight | Qt::AlignVCenter, QString(rating, kFilledStar));
    }

    if (option.state & QStyle::State_HasFocus) {
        painter->setPen(QPen(palette.color(QPalette::Highlight).darker(130), 1, Qt::DotLine));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(item.adjusted(1, 1, -1, -1), 6, 6);
    }
    painter->restore();
}

void ClipGridDelegate::paintThumbnail(QPainter* painter, const QRect& area,
                                      const QModelIndex& index, const QPalette& palette) const {
    // Letterboxed on near-black, as video players show it, in light and dark themes alike.
    painter->fillRect(area, QColor(0x1e, 0x1e, 0x1e));
    const QString key = index.data(ClipTableModel::ContentHashRole).toString();
    const QString path = index.data(ClipTableModel::PathRole).toString();
    Thumbnail thumbnail;
    if (m_cache && ThumbnailStore::isValidKey(key)) {
        thumbnail = m_cache->request(key, path, kThumbnailSize, ThumbnailCache::Priority::Visible);
        if (thumbnail.isNull())
            m_pending.insert(key);
        else
            m_pending.remove(key);
    }
    if (thumbnail.isNull()) {
        painter->setPen(palette.color(QPalette::Mid));
        painter->drawRect(area.adjusted(0, 0, -1, -1));
        return;
    }
    const QSize scaled = thumbnail.image.size().scaled(area.size(), Qt::KeepAspectRatio);
    const QRect target(area.left() + (area.width() - scaled.width()) / 2,
                       area.top() + (area.height() - scaled.height()) / 2, scaled.width(),
                       scaled.height());
    painter->drawImage(target, thumbnail.image);
}

void ClipGridDelegate::paintBadges(QPainter* painter, const QRect& area,
                                   const QModelIndex& index) const {
    QFont font = painter->font();
    font.setPointSizeF(font.pointSizeF() * 0.8);
    font.setBold(true);
    painter->setFont(font);
    const QFontMetrics metrics(font);
    const int height = metrics.height() + 2;

    const auto problem = static_cast<ClipProblem>(index.data(ClipTableModel::ProblemRole).toInt());
    if (problem != ClipProblem::None) {
        const QString label = QStringLiteral("⚠ ") + ClipRecord::problemLabel(problem);
        const QRect rect(area.left() + 4, area.top() + 4, metrics.horizontalAdvance(label) + 10,
                         height);
        drawPill(painter, rect, QColor(0xc9, 0x40, 0x40), label);
        return;
    }
    const QString caption =
        index.siblingAtColumn(ClipTableModel::CaptionColumn).data(Qt::EditRole).toString();
    if (caption.trimmed().isEmpty()) {
        const QString label = tr("No caption");
        const QRect rect(area.left() + 4, area.top() + 4, metrics.horizontalAdvance(label) + 10,
                         height);
        drawPill(painter, rect, QColor(0x60, 0x60, 0x60, 220), label);
    } else if (index.data(ClipTableModel::CaptionNeedsCheckRole).toBool()) {
        const QString label = tr("Check caption");
        const QRect rect(area.left() + 4, area.top() + 4, metrics.horizontalAdvance(label) + 10,
                         height);
        drawPill(painter, rect, QColor(0xc0, 0x80, 0x18), label);
    }
    if (index.data(ClipTableModel::IsImageRole).toBool()) {
        const QString label = tr("Still");
        const int width = metrics.horizontalAdvance(label) + 10;
        drawPill(painter, QRect(area.right() - width - 3, area.top() + 4, width, height),
                 QColor(0x30, 0x60, 0xa0, 220), label);
    }
}
