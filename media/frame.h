// Frame: one decoded picture as plain RGB24 bytes. DecodeOptions: the size, resize mode and
// orientation a caller wants frames in. Shared by VideoReader, thumbnail() and VideoWriter.
#pragma once

#include <cstdint>
#include <vector>

namespace tuneframe::media {

struct Frame {
    int width = 0;
    int height = 0;
    int64_t index = -1;       // display-order frame number, 0 = first frame of the stream
    double pts_seconds = 0.0; // presentation time, 0 = first frame of the stream
    std::vector<uint8_t> rgb; // tightly packed RGB24: stride 3 * width, size 3 * width * height
};

enum class ResizeMode {
    Stretch, // exactly width x height, aspect ratio not kept
    Cover,   // scale to cover width x height, then centre-crop to exactly that size
    Fit,     // scale to fit inside width x height keeping aspect; the frame may be smaller
};

struct DecodeOptions {
    // 0 x 0 keeps the source size (after rotation). When only one side is 0 it follows the
    // other so that the aspect ratio is kept, whatever the mode.
    int width = 0;
    int height = 0;
    ResizeMode resize = ResizeMode::Stretch;
    // Phones store portrait clips landscape plus a rotation; applying it returns them upright.
    bool apply_rotation = true;
};

struct Rational {
    int num = 0;
    int den = 1;
    double value() const { return den == 0 ? 0.0 : static_cast<double>(num) / den; }
};

} // namespace tuneframe::media
