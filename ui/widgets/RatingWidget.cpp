#include "ui/widgets/RatingWidget.h"

#include <QEvent>
#include <QMouseEvent>
#include <QPainter>

namespace {

constexpr QChar kFilledStar(0x2605);
constexpr QChar kEmptyStar(0x2606);
constexpr int kStarSpacing = 2;

} // namespace

RatingWidget::RatingWidget(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setCursor(Qt::PointingHandCursor);
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    retranslateUi();
}

int RatingWidget::rating() const {
    return m_rating;
}

void RatingWidget::setRating(int rating) {
    rating = qBound(0, rating, kStarCount);
    if (rating == m_rating && !m_mixed)
        return;
    m_rating = rating;
    m_mixed = false;
    retranslateUi();
    update();
}

void RatingWidget::setMixed(bool mixed) {
    m_mixed = mixed;
    if (mixed)
        m_rating = 0;
    retranslateUi();
    update();
}

int RatingWidget::starSize() const {
    return fontMetrics().height() + 6;
}

QSize RatingWidget::sizeHint() const {
    const int size = starSize();
    return QSize(kStarCount * size + (kStarCount - 1) * kStarSpacing, size);
}

QSize RatingWidget::minimumSizeHint() const {
    return sizeHint();
}

int RatingWidget::starAt(const QPoint& position) const {
    if (position.y() < 0 || position.y() >= height() || position.x() < 0)
        return 0;
    const int star = position.x() / (starSize() + kStarSpacing) + 1;
    return star <= kStarCount ? star : 0;
}

void RatingWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    QFont font = painter.font();
    font.setPixelSize(starSize() - 4);
    painter.setFont(font);
    const int shown = m_hovered > 0 ? m_hovered : m_rating;
    const QColor filled = isEnabled() ? QColor(0xe0, 0xa0, 0x10) : palette().color(QPalette::Mid);
    const QColor empty = palette().color(isEnabled() ? QPalette::Active : QPalette::Disabled,
                                         QPalette::PlaceholderText);
    for (int star = 1; star <= kStarCount; ++star) {
        const QRect cell((star - 1) * (starSize() + kStarSpacing), 0, starSize(), starSize());
        const bool on = star <= shown;
        painter.setPen(on ? filled : empty);
        painter.drawText(cell, Qt::AlignCenter, QString(on ? kFilledStar : kEmptyStar));
    }
}

void RatingWidget::mouseMoveEvent(QMouseEvent* event) {
    const int star = starAt(event->position().toPoint());
    if (star != m_hovered) {
        m_hovered = star;
        update();
    }
}

void RatingWidget::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        QWidget::mousePressEvent(event);
        return;
    }
    const int star = starAt(event->position().toPoint());
    if (star == 0)
        return;
    const int rating = (star == m_rating && !m_mixed) ? 0 : star;
    setRating(rating);
    emit ratingEdited(rating);
}

void RatingWidget::leaveEvent(QEvent* event) {
    m_hovered = 0;
    update();
    QWidget::leaveEvent(event);
}

void RatingWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void RatingWidget::retranslateUi() {
    if (m_mixed)
        setToolTip(tr("The selected clips have different ratings. Click a star to give them all "
                      "that rating (keys 1–5, 0 clears)."));
    else if (m_rating == 0)
        setToolTip(tr("Not rated. Click a star to rate (keys 1–5)."));
    else
        setToolTip(tr("Rated %1 of 5. Click the same star again to clear (key 0).").arg(m_rating));
    setAccessibleName(tr("Rating"));
}
