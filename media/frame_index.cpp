#include "media/frame_index.h"

#include <algorithm>

namespace tuneframe::media {

FrameIndex FrameIndex::scan(InputFile& input) {
    FrameIndex index;
    PacketPtr packet(av_packet_alloc());
    if (!packet) {
        input.fail(ErrorReason::Io, "could not be indexed: out of memory", "Close other programs.");
    }
    while (input.read_video_packet(packet.get())) {
        // Packets an edit list cuts away never become frames.
        if ((packet->flags & AV_PKT_FLAG_DISCARD) == 0) {
            Entry entry;
            entry.dts = packet->dts;
            entry.pts = packet->pts;
            entry.keyframe = (packet->flags & AV_PKT_FLAG_KEY) != 0;
            // MPEG program streams put a pts on some packets only, and their dts is in decode
            // order, so a stream missing any pts cannot be indexed by timestamp.
            index.has_timestamps_ = index.has_timestamps_ && entry.pts != AV_NOPTS_VALUE;
            index.entries_.push_back(entry);
        }
        av_packet_unref(packet.get());
    }
    index.ended_early_ = input.read_error() != 0;
    if (index.has_timestamps_) {
        std::stable_sort(index.entries_.begin(), index.entries_.end(),
                         [](const Entry& a, const Entry& b) { return a.pts < b.pts; });
        const auto same_pts = [](const Entry& a, const Entry& b) {
            return a.pts == b.pts;
        };
        const bool duplicates = std::adjacent_find(index.entries_.begin(), index.entries_.end(),
                                                   same_pts) != index.entries_.end();
        index.has_timestamps_ = !duplicates;
    }
    return index;
}

int64_t FrameIndex::seek_timestamp(int64_t index, int64_t& keyframe_index) const {
    keyframe_index = index;
    while (keyframe_index > 0 && !entries_[keyframe_index].keyframe) {
        --keyframe_index;
    }
    const Entry& keyframe = entries_[keyframe_index];
    // Demuxers that index by decode time (MP4) land on the keyframe only when asked for its
    // dts; for the others dts <= pts, so asking for it still lands at or before the keyframe.
    return keyframe.dts != AV_NOPTS_VALUE ? keyframe.dts : keyframe.pts;
}

int64_t FrameIndex::index_of(int64_t pts) const {
    const auto after =
        std::lower_bound(entries_.begin(), entries_.end(), pts,
                         [](const Entry& e, int64_t value) { return e.pts < value; });
    if (after == entries_.end()) {
        return size() - 1;
    }
    if (after != entries_.begin() && (pts - std::prev(after)->pts) < (after->pts - pts)) {
        return std::prev(after) - entries_.begin();
    }
    return after - entries_.begin();
}

} // namespace tuneframe::media
