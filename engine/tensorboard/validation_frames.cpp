#include "engine/tensorboard/validation_frames.h"

#include "media/video_reader.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace tuneframe::tensorboard {
namespace {

RgbImage side_by_side(const std::vector<media::Frame>& frames) {
    RgbImage strip;
    for (const media::Frame& frame : frames) {
        strip.width += frame.width;
        strip.height = std::max(strip.height, frame.height);
    }
    strip.rgb.assign(static_cast<std::size_t>(strip.width) * strip.height * 3, 0);
    int left = 0;
    for (const media::Frame& frame : frames) {
        for (int row = 0; row < frame.height; ++row) {
            const std::size_t target = (static_cast<std::size_t>(row) * strip.width + left) * 3;
            std::memcpy(strip.rgb.data() + target,
                        frame.rgb.data() + static_cast<std::size_t>(row) * frame.width * 3,
                        static_cast<std::size_t>(frame.width) * 3);
        }
        left += frame.width;
    }
    return strip;
}

} // namespace

RgbImage validation_strip(const std::filesystem::path& video, int max_height) {
    media::VideoReader reader(video.string());
    const std::int64_t count = reader.frame_count();
    media::DecodeOptions output;
    output.height = std::min(max_height, reader.info().display_height);
    output.resize = media::ResizeMode::Fit;
    reader.set_output(output);
    std::vector<std::int64_t> picks = {0, (count - 1) / 2, count - 1};
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    std::vector<media::Frame> frames;
    for (const std::int64_t index : picks) {
        if (index < 0) {
            continue;
        }
        reader.seek(index);
        if (std::optional<media::Frame> frame = reader.read()) {
            frames.push_back(std::move(*frame));
        }
    }
    if (frames.empty()) {
        return {};
    }
    return side_by_side(frames);
}

} // namespace tuneframe::tensorboard
