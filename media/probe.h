// probe(): what a media file holds, read from its headers without decoding the whole file.
//   ProbeInfo info = media::probe("clip.mp4");   // throws MediaError when it is not a video
// Still images (png, jpg, ...) probe as one-frame clips with is_image set.
#pragma once

#include "media/frame.h"
#include "media/media_error.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace tuneframe::media {

struct ProbeInfo {
    std::string path;
    std::string format_name;  // FFmpeg demuxer name: "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm"
    std::string codec_name;   // "h264", "vp9", "mpeg2video", "gif", "png"
    std::string pixel_format; // decoder output format, "yuv420p"; empty when unknown
    int coded_width = 0;      // as stored
    int coded_height = 0;
    int display_width = 0; // as shown, after rotation
    int display_height = 0;
    int rotation_degrees = 0; // clockwise turn that shows the picture upright: 0, 90, 180, 270
    Rational frame_rate;      // average frame rate
    double fps = 0.0;
    int64_t frame_count = 0;
    bool frame_count_exact = false; // true: the container says so; false: duration * fps
    double duration_seconds = 0.0;
    bool has_audio = false;
    bool is_image = false;
};

// cancel_requested (may be null): when it turns true, probing stops with MediaError(Io).
ProbeInfo probe(const std::string& path, const std::atomic<bool>* cancel_requested = nullptr);

} // namespace tuneframe::media
