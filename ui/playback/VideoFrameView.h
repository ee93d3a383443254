#pragma once

#include <QImage>
#include <QString>
#include <QWidget>

// The picture area of the video player: the current frame scaled to fit with its aspect kept,
// or, when the clip cannot be shown, a message in its place.
class VideoFrameView : public QWidget {
    Q_OBJECT

public:
    explicit VideoFrameView(QWidget* parent = nullptr);

    void setImage(const QImage& image);
    QImage image() const;
    // A message replaces the picture until the next setImage() or clear().
    void setMessage(const QString& title, const QString& detail);
    QString messageTitle() const;
    QString messageDetail() const;
    void clear();

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QRect imageRect() const;
    void paintMessage(QPainter& painter);

    QImage m_image;
    QString m_messageTitle;
    QString m_messageDetail;
};
