#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Which (frames, height, width) bucket a clip trains in and which of its frames are used. The
// studio's bucket preview and the engine's prepare both call assign_bucket(), so what the user
// sees is what training gets. The rules are cogvideox-factory's (cogvideox-spec.md 6.1):
//   frame bucket       argmin_b |b - min(n, max_frames)|, first in list on ties
//   frame indices      range(0, n, n / bucket), the first `bucket` of them, offset by trim_in
//   resolution bucket  argmin over (h, w) of |h - H| + |w - W|, first in list on ties
// where n is the frame count after trimming and H x W the displayed (upright) size.
namespace tuneframe::common {

struct ResolutionBucket {
    int height = 0;
    int width = 0;
};

struct BucketConfig {
    std::vector<int> frame_buckets;            // in the user's order; ties go to the first
    std::vector<ResolutionBucket> resolutions; // in the user's order; ties go to the first
    std::int64_t max_frames = 0;               // 0: no cap
};

struct ClipGeometry {
    std::int64_t frame_count = 0;         // frames in the whole file; 1 for a still image
    std::int64_t trim_in = 0;             // first frame used
    std::optional<std::int64_t> trim_out; // one past the last frame used; nullopt: to the end
    int width = 0;                        // displayed, after rotation
    int height = 0;
};

enum class BucketDropReason {
    None,
    NoFrameBuckets,      // the configuration lists no (valid) frame bucket
    NoResolutionBuckets, // the configuration lists no (valid) resolution
    UnknownFrameCount,   // frame_count is 0
    UnknownSize,         // width or height is 0
    InvalidTrim,         // trim_in < 0, trim_out <= trim_in or trim_out > frame_count
    TooShort,            // fewer frames than the chosen (or the smallest) frame bucket
};

struct BucketAssignment {
    BucketDropReason drop_reason = BucketDropReason::None;
    std::string message; // English, for logs and the engine's events; empty when assigned
    int frames = 0;
    int height = 0;
    int width = 0;
    std::vector<std::int64_t> frame_indices; // source frame numbers, ascending, `frames` of them

    bool assigned() const { return drop_reason == BucketDropReason::None; }
};

// Stable lower-case names for JSON and logs ("too_short", ...).
std::string_view to_string(BucketDropReason reason);

// Every (h, w) of heights x widths, heights outer, as cogvideox-factory enumerates them.
std::vector<ResolutionBucket> resolution_grid(const std::vector<int>& heights,
                                              const std::vector<int>& widths);

// Problems with the configuration itself (non-positive sizes, empty lists), one line each;
// empty when it is usable. assign_bucket() ignores non-positive entries.
std::vector<std::string> check_bucket_config(const BucketConfig& config);

BucketAssignment assign_bucket(const ClipGeometry& clip, const BucketConfig& config);

} // namespace tuneframe::common
