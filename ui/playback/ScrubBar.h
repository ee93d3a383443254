#pragma once

#include <QSlider>

// The player's horizontal scrub slider, one step per frame. It also shows the trim range: the
// frames outside [in, out] are shaded and each mark is a line across the groove. A click on
// the groove jumps there (instead of paging) and keeps dragging from there.
class ScrubBar : public QSlider {
    Q_OBJECT

public:
    explicit ScrubBar(QWidget* parent = nullptr);

    // Frames in..out inclusive; shown only while the range is narrower than the whole clip.
    void setTrimRange(int in, int out);
    int trimIn() const;
    int trimOut() const;

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect grooveRect() const;
    QRect handleRect() const;
    int positionOf(int value) const; // x centre of value's handle position
    int valueAt(int x) const;

    int m_trimIn = 0;
    int m_trimOut = 0;
};
