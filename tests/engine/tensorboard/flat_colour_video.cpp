#include "tests/engine/tensorboard/flat_colour_video.h"

#include "media/video_writer.h"

#include <vector>

namespace tuneframe::test {

std::array<std::uint8_t, 3> flat_colour(int frame) {
    const auto red = static_cast<std::uint8_t>(frame * 30 % 256);
    return {red, 200, static_cast<std::uint8_t>(255 - red)};
}

void write_flat_colour_video(const std::string& path, int frames, int width, int height) {
    media::VideoWriter writer(path, width, height);
    for (int k = 0; k < frames; ++k) {
        const std::array<std::uint8_t, 3> colour = flat_colour(k);
        std::vector<std::uint8_t> rgb;
        rgb.reserve(static_cast<std::size_t>(width) * height * 3);
        for (int i = 0; i < width * height; ++i) {
            rgb.insert(rgb.end(), colour.begin(), colour.end());
        }
        writer.write(rgb.data());
    }
    writer.finish();
}

} // namespace tuneframe::test
