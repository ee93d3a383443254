#pragma once

#include <QImage>
#include <QString>

// Test clips whose every frame shows its own index, so a test can tell which frame it was
// handed: bit b of the index is column b of a row of black (0) and white (1) cells, wide
// enough to survive H.264 and downscaling.
class PatternClip {
public:
    static constexpr int kBits = 8;
    static constexpr int kWidth = 128;
    static constexpr int kHeight = 64;

    // Writes frameCount pattern frames as H.264 MP4 at fps, a keyframe every gop frames and
    // B-frames in between, so seeks have to decode forward from a keyframe. Returns an error
    // message, empty on success.
    static QString write(const QString& path, int frameCount, int fps, int gop = 12,
                         int width = kWidth, int height = kHeight);
    static QImage frame(int index, int width = kWidth, int height = kHeight);
    // The index image shows; -1 when some cell is neither clearly black nor clearly white.
    static int read(const QImage& image);
    // Bytes that no demuxer takes for a video.
    static QString writeGarbage(const QString& path);
};
