#include "PatternClip.h"

#include "app/playback/FrameImage.h"
#include "media/video_writer.h"

#include <QFile>
#include <QPainter>

#include <exception>

namespace media = tuneframe::media;

QString PatternClip::write(const QString& path, int frameCount, int fps, int gop, int width,
                           int height) {
    try {
        media::WriterOptions options;
        options.fps = media::Rational{fps, 1};
        options.gop_size = gop;
        options.max_b_frames = 2;
        media::VideoWriter writer(QFile::encodeName(path).toStdString(), width, height, options);
        for (int index = 0; index < frameCount; ++index)
            writer.write(FrameImage::toFrame(frame(index, width, height)));
        writer.finish();
    } catch (const std::exception& error) {
        return QString::fromStdString(error.what());
    }
    return QString();
}

QImage PatternClip::frame(int index, int width, int height) {
    QImage image(width, height, QImage::Format_RGB888);
    image.fill(Qt::black);
    QPainter painter(&image);
    for (int bit = 0; bit < kBits; ++bit) {
        if ((index >> bit) & 1) {
            const int left = bit * width / kBits;
            const int right = (bit + 1) * width / kBits;
            painter.fillRect(left, 0, right - left, height, Qt::white);
        }
    }
    return image;
}

int PatternClip::read(const QImage& image) {
    if (image.isNull())
        return -1;
    const QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    int index = 0;
    for (int bit = 0; bit < kBits; ++bit) {
        const int left = bit * rgb.width() / kBits;
        const int right = (bit + 1) * rgb.width() / kBits;
        // The middle half of the cell, clear of the ringing at its edges.
        const int x0 = left + (right - left) / 4;
        const int x1 = right - (right - left) / 4;
        double sum = 0;
        int count = 0;
        for (int y = rgb.height() / 4; y < rgb.height() * 3 / 4; ++y) {
            const uchar* line = rgb.constScanLine(y);
            for (int x = x0; x < x1; ++x) {
                sum += (line[3 * x] + line[3 * x + 1] + line[3 * x + 2]) / 3.0;
                ++count;
            }
        }
        const double mean = count > 0 ? sum / count : -1;
        if (mean > 192)
            index |= 1 << bit;
        else if (mean < 0 || mean > 64)
            return -1;
    }
    return index;
}

QString PatternClip::writeGarbage(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return file.errorString();
    QByteArray bytes;
    for (int i = 0; i < 4096; ++i)
        bytes.append(static_cast<char>((i * 7919 + 13) % 251));
    file.write(bytes);
    return QString();
}
