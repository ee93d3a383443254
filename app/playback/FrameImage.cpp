#include "app/playback/FrameImage.h"

#include <cstring>

QImage FrameImage::toImage(const tuneframe::media::Frame& frame) {
    const size_t rowBytes = static_cast<size_t>(frame.width) * 3;
    if (frame.width <= 0 || frame.height <= 0 || frame.rgb.size() < rowBytes * frame.height)
        return QImage();
    QImage image(frame.width, frame.height, QImage::Format_RGB888);
    for (int y = 0; y < frame.height; ++y)
        std::memcpy(image.scanLine(y), frame.rgb.data() + rowBytes * y, rowBytes);
    return image;
}

tuneframe::media::Frame FrameImage::toFrame(const QImage& image) {
    const QImage rgb = image.format() == QImage::Format_RGB888
                           ? image
                           : image.convertToFormat(QImage::Format_RGB888);
    tuneframe::media::Frame frame;
    frame.width = rgb.width();
    frame.height = rgb.height();
    const size_t rowBytes = static_cast<size_t>(frame.width) * 3;
    frame.rgb.resize(rowBytes * frame.height);
    for (int y = 0; y < frame.height; ++y)
        std::memcpy(frame.rgb.data() + rowBytes * y, rgb.constScanLine(y), rowBytes);
    return frame;
}
