#pragma once

#include <QObject>

class QWidget;

// Keeps the mouse wheel from changing a setting the user is only scrolling past: spin boxes,
// date and time edits, combo boxes and sliders take the wheel only while they have the
// keyboard focus (a click or Tab gives it, never the wheel itself), and otherwise hand it on to
// what lies under them, so a scroll area around them scrolls. One filter on the application
// covers every page and dialog, including those made later.
class WheelGuard : public QObject {
    Q_OBJECT

public:
    // Installs the guard on the running application once; later calls do nothing.
    static void install();
    // Whether a widget of this kind takes the wheel only with the focus (scroll bars never
    // are: the wheel is what they are for).
    static bool guards(const QWidget* widget);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent);
};
