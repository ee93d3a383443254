#include "media/display_rotation.h"

extern "C" {
#include <libavutil/display.h>
}

#include <cmath>
#include <cstring>

namespace tuneframe::media {

int normalise_rotation(double degrees) {
    const long quarter_turns = std::lround(degrees / 90.0);
    return static_cast<int>(((quarter_turns % 4) + 4) % 4) * 90;
}

int stream_rotation_degrees(const AVStream* stream) {
    size_t size = 0;
    const uint8_t* matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (matrix == nullptr || size < 9 * sizeof(int32_t)) {
        return 0;
    }
    // FFmpeg's angle is counter-clockwise; the turn that shows the picture upright is the
    // opposite one (ffmpeg's own autorotate negates it the same way).
    const double counter_clockwise =
        av_display_rotation_get(reinterpret_cast<const int32_t*>(matrix));
    if (std::isnan(counter_clockwise)) {
        return 0;
    }
    return normalise_rotation(-counter_clockwise);
}

bool set_stream_rotation(AVStream* stream, int degrees) {
    uint8_t* matrix =
        av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (matrix == nullptr) {
        return false;
    }
    // In this FFmpeg, av_display_rotation_get() reads back the negated angle of
    // av_display_rotation_set(), so the clockwise turn goes in as it is; the result is the
    // matrix phones write for portrait video (ffprobe: "rotation of -90.00 degrees").
    av_display_rotation_set(reinterpret_cast<int32_t*>(matrix), static_cast<double>(degrees));
    return true;
}

std::vector<uint8_t> rotate_rgb(const std::vector<uint8_t>& rgb, int& width, int& height,
                                int degrees) {
    const int turn = normalise_rotation(degrees);
    if (turn == 0) {
        return rgb;
    }
    const int out_width = turn == 180 ? width : height;
    const int out_height = turn == 180 ? height : width;
    std::vector<uint8_t> out(rgb.size());
    for (int y = 0; y < out_height; ++y) {
        for (int x = 0; x < out_width; ++x) {
            int source_x = 0;
            int source_y = 0;
            if (turn == 90) {
                source_x = y;
                source_y = height - 1 - x;
            } else if (turn == 180) {
                source_x = width - 1 - x;
                source_y = height - 1 - y;
            } else {
                source_x = width - 1 - y;
                source_y = x;
            }
            std::memcpy(&out[(static_cast<size_t>(y) * out_width + x) * 3],
                        &rgb[(static_cast<size_t>(source_y) * width + source_x) * 3], 3);
        }
    }
    width = out_width;
    height = out_height;
    return out;
}

} // namespace tuneframe::media
