// Internal: every frame's presentation timestamp in display order plus which frames are
// keyframes, built by demuxing (not decoding) the whole file once. It is what makes seeking
// frame-accurate: frame N is the N-th smallest timestamp, whatever the codec reorders.
#pragma once

#include "media/input_file.h"

#include <cstdint>
#include <vector>

namespace tuneframe::media {

class FrameIndex {
public:
    // Reads every video packet of input; leaves input at the end of the stream.
    static FrameIndex scan(InputFile& input);

    int64_t size() const { return static_cast<int64_t>(entries_.size()); }
    // False when some packet lacks a pts or two share one (MPEG program streams with B-frames,
    // AVI); callers then decode from the start and count frames instead.
    bool has_timestamps() const { return has_timestamps_; }
    // The read stopped on an error before the end of the file (typically truncation).
    bool ended_early() const { return ended_early_; }

    int64_t pts(int64_t index) const { return entries_[index].pts; }
    // Where to seek (in stream time base) to decode frame index: the nearest keyframe at or
    // before it in display order; the keyframe's own index goes to keyframe_index.
    int64_t seek_timestamp(int64_t index, int64_t& keyframe_index) const;
    // The frame whose timestamp is nearest to pts.
    int64_t index_of(int64_t pts) const;

private:
    struct Entry {
        int64_t pts = 0;
        int64_t dts = 0;
        bool keyframe = false;
    };

    std::vector<Entry> entries_;
    bool has_timestamps_ = true;
    bool ended_early_ = false;
};

} // namespace tuneframe::media
