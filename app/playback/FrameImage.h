#pragma once

#include "media/frame.h"

#include <QImage>

// Moves pictures between media/'s tightly packed RGB24 frames and QImage, whose rows are padded
// to 4 bytes; the conversions copy row by row so every width works.
class FrameImage {
public:
    // An RGB888 image of frame's size; a null image when frame holds no picture.
    static QImage toImage(const tuneframe::media::Frame& frame);
    // image converted to RGB888 first when it is in another format.
    static tuneframe::media::Frame toFrame(const QImage& image);
};
