#include "ui/playback/VideoFrameView.h"

#include <QPainter>
#include <QPalette>

#include <algorithm>

VideoFrameView::VideoFrameView(QWidget* parent)
    : QWidget(parent) {
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void VideoFrameView::setImage(const QImage& image) {
    m_image = image;
    m_messageTitle.clear();
    m_messageDetail.clear();
    update();
}

QImage VideoFrameView::image() const {
    return m_image;
}

void VideoFrameView::setMessage(const QString& title, const QString& detail) {
    m_image = QImage();
    m_messageTitle = title;
    m_messageDetail = detail;
    update();
}

QString VideoFrameView::messageTitle() const {
    return m_messageTitle;
}

QString VideoFrameView::messageDetail() const {
    return m_messageDetail;
}

void VideoFrameView::clear() {
    setImage(QImage());
}

QSize VideoFrameView::sizeHint() const {
    return QSize(480, 320);
}

QSize VideoFrameView::minimumSizeHint() const {
    return QSize(160, 100);
}

QRect VideoFrameView::imageRect() const {
    if (m_image.isNull())
        return QRect();
    const QSize scaled = m_image.size().scaled(size(), Qt::KeepAspectRatio);
    const QPoint topLeft((width() - scaled.width()) / 2, (height() - scaled.height()) / 2);
    return QRect(topLeft, scaled);
}

void VideoFrameView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    // Video is watched against black whatever the theme, so the clip's own colours read true.
    painter.fillRect(rect(), Qt::black);
    if (!m_messageTitle.isEmpty()) {
        paintMessage(painter);
        return;
    }
    if (m_image.isNull())
        return;
    painter.setRenderHint(QPainter::SmoothPixmapTransform);
    painter.drawImage(imageRect(), m_image);
}

void VideoFrameView::paintMessage(QPainter& painter) {
    const int margin = 16;
    const QRect area = rect().adjusted(margin, margin, -margin, -margin);
    QFont titleFont = font();
    titleFont.setBold(true);
    painter.setPen(Qt::white);
    painter.setFont(titleFont);
    const int flags = Qt::AlignHCenter | Qt::TextWordWrap;
    const QRect titleBounds = painter.boundingRect(area, flags, m_messageTitle);
    const QRect detailBounds = painter.boundingRect(area, flags, m_messageDetail);
    const int spacing = m_messageDetail.isEmpty() ? 0 : 8;
    const int top =
        area.top() +
        std::max(0, (area.height() - titleBounds.height() - spacing - detailBounds.height()) / 2);
    painter.drawText(QRect(area.left(), top, area.width(), titleBounds.height()), flags,
                     m_messageTitle);
    painter.setFont(font());
    painter.setPen(QColor(220, 220, 220));
    painter.drawText(QRect(area.left(), top + titleBounds.height() + spacing, area.width(),
                           area.bottom() - top - titleBounds.height() - spacing),
                     flags, m_messageDetail);
}
