#include "ui/widgets/FittedScrollArea.h"

#include <QEvent>
#include <QScrollBar>

FittedScrollArea::FittedScrollArea(QWidget* parent)
    : QScrollArea(parent) {
    setWidgetResizable(true);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
}

QSize FittedScrollArea::minimumSizeHint() const {
    QSize hint = QScrollArea::minimumSizeHint();
    if (QWidget* content = widget()) {
        const int width = content->minimumSizeHint().width() +
                          verticalScrollBar()->sizeHint().width() + 2 * frameWidth();
        hint.setWidth(qMax(hint.width(), width));
    }
    return hint;
}

bool FittedScrollArea::eventFilter(QObject* watched, QEvent* event) {
    // setWidget() installed this filter on the widget; a changed layout may change its minimum.
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        updateGeometry();
    return QScrollArea::eventFilter(watched, event);
}
