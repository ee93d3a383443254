#include "common/bucket_assignment.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace tuneframe::common {
namespace {

BucketAssignment dropped(BucketDropReason reason, std::string message) {
    BucketAssignment assignment;
    assignment.drop_reason = reason;
    assignment.message = std::move(message);
    return assignment;
}

std::string frames_text(std::int64_t count) {
    return std::to_string(count) + (count == 1 ? " frame" : " frames");
}

} // namespace

std::string_view to_string(BucketDropReason reason) {
    switch (reason) {
    case BucketDropReason::None:
        return "none";
    case BucketDropReason::NoFrameBuckets:
        return "no_frame_buckets";
    case BucketDropReason::NoResolutionBuckets:
        return "no_resolution_buckets";
    case BucketDropReason::UnknownFrameCount:
        return "unknown_frame_count";
    case BucketDropReason::UnknownSize:
        return "unknown_size";
    case BucketDropReason::InvalidTrim:
        return "invalid_trim";
    case BucketDropReason::TooShort:
        return "too_short";
    }
    return "invalid";
}

std::vector<ResolutionBucket> resolution_grid(const std::vector<int>& heights,
                                              const std::vector<int>& widths) {
    std::vector<ResolutionBucket> grid;
    grid.reserve(heights.size() * widths.size());
    for (const int height : heights) {
        for (const int width : widths) {
            grid.push_back({height, width});
        }
    }
    return grid;
}

std::vector<std::string> check_bucket_config(const BucketConfig& config) {
    std::vector<std::string> problems;
    if (config.frame_buckets.empty()) {
        problems.push_back("no frame buckets are listed; add at least one, such as 49");
    }
    for (const int frames : config.frame_buckets) {
        if (frames <= 0) {
            problems.push_back("frame bucket " + std::to_string(frames) +
                               " is not a positive frame count");
        }
    }
    if (config.resolutions.empty()) {
        problems.push_back("no resolution buckets are listed; add at least one, such as 480x720");
    }
    for (const ResolutionBucket& bucket : config.resolutions) {
        if (bucket.height <= 0 || bucket.width <= 0) {
            problems.push_back("resolution bucket " + std::to_string(bucket.height) + "x" +
                               std::to_string(bucket.width) + " is not a positive size");
        }
    }
    if (config.max_frames < 0) {
        problems.push_back("max_frames " + std::to_string(config.max_frames) +
                           " is negative; use 0 for no cap");
    }
    return problems;
}

BucketAssignment assign_bucket(const ClipGeometry& clip, const BucketConfig& config) {
    std::vector<int> frame_buckets;
    for (const int frames : config.frame_buckets) {
        if (frames > 0) {
            frame_buckets.push_back(frames);
        }
    }
    if (frame_buckets.empty()) {
        return dropped(BucketDropReason::NoFrameBuckets, "no frame bucket is configured");
    }
    const bool any_resolution = std::any_of(
        config.resolutions.begin(), config.resolutions.end(),
        [](const ResolutionBucket& bucket) { return bucket.height > 0 && bucket.width > 0; });
    if (!any_resolution) {
        return dropped(BucketDropReason::NoResolutionBuckets, "no resolution bucket is configured");
    }
    if (clip.frame_count <= 0) {
        return dropped(BucketDropReason::UnknownFrameCount, "the clip's frame count is unknown");
    }
    if (clip.width <= 0 || clip.height <= 0) {
        return dropped(BucketDropReason::UnknownSize, "the clip's picture size is unknown");
    }
    const std::int64_t trim_out = clip.trim_out.value_or(clip.frame_count);
    if (clip.trim_in < 0 || trim_out <= clip.trim_in || trim_out > clip.frame_count) {
        return dropped(BucketDropReason::InvalidTrim,
                       "trim " + std::to_string(clip.trim_in) + ".." + std::to_string(trim_out) +
                           " does not fit the clip's " + frames_text(clip.frame_count));
    }
    const std::int64_t n = trim_out - clip.trim_in;

    const std::int64_t target = config.max_frames > 0 ? std::min(n, config.max_frames) : n;
    int chosen = frame_buckets.front();
    for (const int frames : frame_buckets) {
        if (std::llabs(frames - target) < std::llabs(chosen - target)) {
            chosen = frames;
        }
    }
    const int smallest = *std::min_element(frame_buckets.begin(), frame_buckets.end());
    if (n < smallest) {
        return dropped(BucketDropReason::TooShort,
                       "the clip has " + frames_text(n) +
                           " after trimming, fewer than the smallest frame bucket (" +
                           std::to_string(smallest) + ")");
    }
    if (n < chosen) {
        return dropped(BucketDropReason::TooShort,
                       "the clip has " + frames_text(n) +
                           " after trimming; the nearest frame bucket is " +
                           std::to_string(chosen) + ", which needs more frames than that");
    }

    BucketAssignment assignment;
    assignment.frames = chosen;
    const std::int64_t stride = n / chosen;
    assignment.frame_indices.reserve(static_cast<std::size_t>(chosen));
    for (std::int64_t index = 0; index < chosen; ++index) {
        assignment.frame_indices.push_back(clip.trim_in + index * stride);
    }

    long long best_distance = std::numeric_limits<long long>::max();
    for (const ResolutionBucket& bucket : config.resolutions) {
        if (bucket.height <= 0 || bucket.width <= 0) {
            continue;
        }
        const long long distance = std::llabs(static_cast<long long>(bucket.height) - clip.height) +
                                   std::llabs(static_cast<long long>(bucket.width) - clip.width);
        if (distance < best_distance) {
            best_distance = distance;
            assignment.height = bucket.height;
            assignment.width = bucket.width;
        }
    }
    return assignment;
}

} // namespace tuneframe::common
