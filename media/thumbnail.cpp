#include "media/thumbnail.h"

#include "media/frame_converter.h"
#include "media/input_file.h"
#include "media/video_decoder.h"

#include <algorithm>
#include <cmath>

namespace tuneframe::media {

namespace {

int64_t to_stream_time(const AVStream* stream, double seconds) {
    const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    return start + static_cast<int64_t>(std::llround(seconds / av_q2d(stream->time_base)));
}

DecodeOptions fit_box(const ProbeInfo& info, int max_side) {
    const int longest = std::max(info.display_width, info.display_height);
    const int side = max_side <= 0 ? longest : std::min(max_side, longest);
    return {side, side, ResizeMode::Fit, true};
}

} // namespace

Frame thumbnail(const std::string& path, double time_seconds, int max_side) {
    InputFile input(path);
    const ProbeInfo info = describe(input);
    // Preview work stays on the calling thread; a studio runs many thumbnails side by side.
    VideoDecoder decoder(input, 1);

    const double seconds = std::clamp(time_seconds, 0.0, info.duration_seconds);
    AVFrame* decoded = nullptr;
    bool moved = false;
    if (seconds > 0.0 && input.seek_backward(to_stream_time(input.video_stream(), seconds))) {
        moved = true;
        decoder.reset(true);
        decoded = decoder.next_frame(input);
    }
    if (decoded == nullptr && moved) {
        // The seek landed past the last picture; the start always has one. A demuxer that
        // cannot rewind gets a fresh handle, which starts there.
        if (!input.rewind()) {
            return thumbnail(path, 0.0, max_side);
        }
        decoder.reset(false);
    }
    if (decoded == nullptr) {
        decoded = decoder.next_frame(input);
    }
    if (decoded == nullptr) {
        input.fail(ErrorReason::Corrupt, "has no picture that can be decoded",
                   "The file is probably damaged; copy or export it again.");
    }

    FrameConverter converter(path);
    Frame frame = converter.convert(*decoded, fit_box(info, max_side), info.rotation_degrees);
    const AVStream* stream = input.video_stream();
    const int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    if (decoded->best_effort_timestamp != AV_NOPTS_VALUE) {
        frame.pts_seconds =
            static_cast<double>(decoded->best_effort_timestamp - start) * av_q2d(stream->time_base);
    }
    frame.index = std::llround(frame.pts_seconds * info.fps);
    return frame;
}

} // namespace tuneframe::media
