#pragma once

#include <QScrollArea>

// A scroll area that scrolls only up and down: it is never narrower than its widget's minimum
// width (plus the vertical scroll bar), so a splitter or window cannot squeeze its widget into
// sideways scrolling that hides buttons at the right edge. It follows the widget's minimum as
// that changes (a section expanding, a language with longer words).
class FittedScrollArea : public QScrollArea {
    Q_OBJECT

public:
    explicit FittedScrollArea(QWidget* parent = nullptr);

    QSize minimumSizeHint() const override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};
