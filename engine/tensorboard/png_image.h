#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tuneframe::tensorboard {

// A picture as tightly packed RGB24 rows (3 * width bytes each), top row first.
struct RgbImage {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb;
};

// The picture as a PNG file's bytes, encoded by libpng. Throws core::Error on a size that does
// not match its pixels or when libpng refuses.
std::string encode_png(const RgbImage& image);

} // namespace tuneframe::tensorboard
