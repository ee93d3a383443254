#include "media/frame_check.h"

namespace tuneframe::media {

FrameCheck check_frames(VideoReader& reader, LastFrame last_frame) {
    FrameCheck check;
    check.frames = reader.frame_count();
    const ProbeInfo& info = reader.info();
    check.listed = info.frame_count_exact ? info.frame_count : 0;
    if (check.frames < check.listed) {
        check.problem = FrameProblem::Truncated;
        check.detail = std::to_string(check.frames) + " of the " + std::to_string(check.listed) +
                       " frames the container lists are present";
        return check;
    }
    if (check.frames <= 0) {
        check.problem = FrameProblem::NoFrames;
        check.detail = "no frame could be found";
        return check;
    }
    if (last_frame == LastFrame::Skip) {
        return check;
    }
    try {
        reader.seek(check.frames - 1);
        if (!reader.read()) {
            check.problem = FrameProblem::Truncated;
            check.detail = "frame " + std::to_string(check.frames - 1) +
                           ", the last one listed, does not decode";
        }
    } catch (const MediaError& error) {
        if (error.reason() != ErrorReason::Corrupt) {
            throw;
        }
        check.problem = FrameProblem::Truncated;
        check.detail = error.what();
    }
    return check;
}

} // namespace tuneframe::media
