#pragma once

#include <QWidget>

// Zero to five stars. Clicking a star sets that rating; clicking the current rating's star
// clears it to 0. ratingEdited reports the user's clicks only, never setRating().
class RatingWidget : public QWidget {
    Q_OBJECT

public:
    static constexpr int kStarCount = 5;

    explicit RatingWidget(QWidget* parent = nullptr);

    int rating() const;
    void setRating(int rating);
    // A selection of clips with different ratings shows no stars filled, and says so.
    void setMixed(bool mixed);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void ratingEdited(int rating);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    int starAt(const QPoint& position) const; // 1-based; 0 outside the stars
    int starSize() const;
    void retranslateUi();

    int m_rating = 0;
    int m_hovered = 0;
    bool m_mixed = false;
};
