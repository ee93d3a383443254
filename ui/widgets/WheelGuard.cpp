#include "ui/widgets/WheelGuard.h"

#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QEvent>
#include <QScrollBar>
#include <QWheelEvent>

WheelGuard::WheelGuard(QObject* parent)
    : QObject(parent) {
    setObjectName(QStringLiteral("wheelGuard"));
}

void WheelGuard::install() {
    QCoreApplication* application = QCoreApplication::instance();
    if (!application || application->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly))
        return;
    application->installEventFilter(new WheelGuard(application));
}

bool WheelGuard::guards(const QWidget* widget) {
    if (!widget || qobject_cast<const QScrollBar*>(widget))
        return false;
    return qobject_cast<const QAbstractSpinBox*>(widget) ||
           qobject_cast<const QComboBox*>(widget) || qobject_cast<const QAbstractSlider*>(widget);
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event) {
    const QEvent::Type type = event->type();
    if (type != QEvent::Polish && type != QEvent::Wheel)
        return false;
    auto* widget = qobject_cast<QWidget*>(watched);
    if (!guards(widget))
        return false;
    if (type == QEvent::Polish) {
        // Qt gives a WheelFocus widget the focus before it sees the wheel, which would let the
        // wheel through below: such fields take the focus from clicks and Tab only.
        if (widget->focusPolicy() == Qt::WheelFocus)
            widget->setFocusPolicy(Qt::StrongFocus);
        return false;
    }
    const QWidget* focused = QApplication::focusWidget();
    if (widget->hasFocus() || (focused && widget->isAncestorOf(focused)))
        return false;
    // Ignored and filtered: Qt offers the wheel to the parent, up to the scroll area.
    event->ignore();
    return true;
}
