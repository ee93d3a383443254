// check_frames(): whether a video holds every frame it lists. The one check behind the studio's
// "Truncated" flag on import and prepare's "truncated" skip, so both call the same file cut
// short.
//   VideoReader reader("clip.mp4");
//   const FrameCheck check = check_frames(reader, LastFrame::Decode);
//   if (check.problem == FrameProblem::Truncated) { ... check.detail ... }
#pragma once

#include "media/video_reader.h"

#include <cstdint>
#include <string>

namespace tuneframe::media {

enum class FrameProblem {
    None,
    Truncated, // fewer frames than the container lists, or the last one does not decode
    NoFrames,  // not one frame could be found
};

struct FrameCheck {
    int64_t frames = 0; // frames present: counted by demuxing the whole file
    int64_t listed = 0; // the count the container states; 0 when it states none exactly
    FrameProblem problem = FrameProblem::None;
    // What is wrong, for people: "22 of the 50 frames the container lists are present";
    // empty when nothing is.
    std::string detail;
};

// Decode: also decode the last frame, which proves the file whole where the container states
// no count (Matroska, WebM) at the cost of decoding up to one group of pictures. Skip: the
// count alone, for callers that decode the frames they use anyway.
enum class LastFrame { Skip, Decode };

// Throws MediaError as the reader does; a last frame that fails with Corrupt is Truncated.
FrameCheck check_frames(VideoReader& reader, LastFrame last_frame);

} // namespace tuneframe::media
