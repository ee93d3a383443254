#include "ui/playback/ScrubBar.h"

#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionSlider>

#include <algorithm>

ScrubBar::ScrubBar(QWidget* parent)
    : QSlider(Qt::Horizontal, parent) {
    setRange(0, 0);
    setSingleStep(1);
    setPageStep(10);
    setTracking(true);
}

void ScrubBar::setTrimRange(int in, int out) {
    if (in == m_trimIn && out == m_trimOut)
        return;
    m_trimIn = in;
    m_trimOut = out;
    update();
}

int ScrubBar::trimIn() const {
    return m_trimIn;
}

int ScrubBar::trimOut() const {
    return m_trimOut;
}

QRect ScrubBar::grooveRect() const {
    QStyleOptionSlider option;
    initStyleOption(&option);
    return style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderGroove, this);
}

QRect ScrubBar::handleRect() const {
    QStyleOptionSlider option;
    initStyleOption(&option);
    return style()->subControlRect(QStyle::CC_Slider, &option, QStyle::SC_SliderHandle, this);
}

int ScrubBar::positionOf(int value) const {
    const QRect groove = grooveRect();
    const int handleWidth = handleRect().width();
    const int span = std::max(1, groove.width() - handleWidth);
    return groove.left() + handleWidth / 2 +
           QStyle::sliderPositionFromValue(minimum(), maximum(), value, span);
}

int ScrubBar::valueAt(int x) const {
    const QRect groove = grooveRect();
    const int handleWidth = handleRect().width();
    const int span = std::max(1, groove.width() - handleWidth);
    return QStyle::sliderValueFromPosition(minimum(), maximum(),
                                           x - groove.left() - handleWidth / 2, span);
}

void ScrubBar::paintEvent(QPaintEvent* event) {
    QSlider::paintEvent(event);
    const bool trimmed = maximum() > minimum() && (m_trimIn > minimum() || m_trimOut < maximum());
    if (!trimmed)
        return;
    QPainter painter(this);
    const QRect groove = grooveRect();
    const int inX = positionOf(m_trimIn);
    const int outX = positionOf(m_trimOut);
    QColor shade = palette().color(QPalette::Window);
    shade.setAlpha(170);
    painter.fillRect(QRect(QPoint(groove.left(), rect().top()), QPoint(inX, rect().bottom())),
                     shade);
    painter.fillRect(QRect(QPoint(outX, rect().top()), QPoint(groove.right(), rect().bottom())),
                     shade);
    const QColor mark = palette().color(QPalette::Highlight);
    painter.setPen(QPen(mark, 2));
    painter.drawLine(inX, rect().top() + 1, inX, rect().bottom() - 1);
    painter.drawLine(outX, rect().top() + 1, outX, rect().bottom() - 1);
    // Brackets on the marks say which end is which without a legend.
    painter.drawLine(inX, rect().top() + 1, inX + 4, rect().top() + 1);
    painter.drawLine(inX, rect().bottom() - 1, inX + 4, rect().bottom() - 1);
    painter.drawLine(outX - 4, rect().top() + 1, outX, rect().top() + 1);
    painter.drawLine(outX - 4, rect().bottom() - 1, outX, rect().bottom() - 1);
}

void ScrubBar::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton && isEnabled() &&
        !handleRect().contains(event->position().toPoint())) {
        // Move the handle under the pointer first; the base class then starts a drag from it.
        setValue(valueAt(event->position().toPoint().x()));
    }
    QSlider::mousePressEvent(event);
}
