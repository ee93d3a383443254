// Internal: decoded AVFrame -> RGB24 Frame at the size, resize mode and orientation a caller
// asked for. Keeps its swscale context between calls, so stepping through a clip is cheap.
#pragma once

#include "media/ffmpeg_handles.h"
#include "media/frame.h"

#include <string>
#include <utility>

namespace tuneframe::media {

// Where a picture of display_width x display_height goes for given options: scaled to
// scaled_width x scaled_height (display orientation), then cropped to the output rectangle.
struct OutputPlan {
    int scaled_width = 0;
    int scaled_height = 0;
    int crop_x = 0;
    int crop_y = 0;
    int width = 0;
    int height = 0;
};

// Throws std::invalid_argument for negative sizes.
OutputPlan plan_output(int display_width, int display_height, const DecodeOptions& options);

class FrameConverter {
public:
    // path only names the file in errors.
    explicit FrameConverter(std::string path)
        : path_(std::move(path)) {}

    // rotation_degrees: the stream's clockwise rotation, applied when options ask for it.
    Frame convert(const AVFrame& frame, const DecodeOptions& options, int rotation_degrees);

private:
    std::vector<uint8_t> scale(const AVFrame& frame, int width, int height);

    std::string path_;
    SwsContextPtr sws_;
};

} // namespace tuneframe::media
