#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tuneframe::data {

// The job's dataset.resize_mode.
enum class ResizeMode {
    Invalid,
    Stretch,    // resize to exactly the bucket; the aspect ratio is not kept
    CenterCrop, // scale to cover the bucket keeping the aspect ratio, then crop the middle
    RandomCrop, // cover, then crop at an offset drawn once per clip (see place_frames)
};

// "stretch", "center_crop", "random_crop"; anything else is a BadInput error naming them.
ResizeMode parse_resize_mode(const std::string& name);
std::string_view to_string(ResizeMode mode);

// Where a clip's picture goes: scaled to scaled_width x scaled_height, then the bucket-sized
// window with its top-left corner at (crop_x, crop_y) is kept.
struct FramePlacement {
    ResizeMode mode = ResizeMode::Invalid;
    int scaled_width = 0;
    int scaled_height = 0;
    int crop_x = 0;
    int crop_y = 0;
    int width = 0; // the bucket
    int height = 0;
};

// The cover size is media's (ResizeMode::Cover): the factor that makes both sides reach the
// bucket, sides rounded to the nearest pixel. The random crop's offset comes from a SplitMix64
// generator seeded by (seed, clip_index), so it is the same on every run, platform and
// library version: a cache entry holds one fixed crop, and a job that wants another crop of the
// same clip changes its seed (the offset is part of the cache key). cogvideox-factory draws a
// new crop each time it loads a clip; with precomputed latents it too trains on one.
FramePlacement place_frames(ResizeMode mode, int display_width, int display_height,
                            int bucket_width, int bucket_height, std::uint64_t seed,
                            std::int64_t clip_index);

} // namespace tuneframe::data
