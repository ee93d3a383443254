#pragma once

#include "engine/data/frame_placement.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tuneframe::data {

// A clip that cannot be used (missing, empty, not a video, damaged): prepare reports it with
// the reason and skips it. Failures of the machine (a build without FFmpeg) are core::Error.
class ClipError : public std::runtime_error {
public:
    ClipError(std::string reason, const std::string& message);
    // media's stable name ("not_found", "corrupt", "not_a_video", ...).
    const std::string& reason() const { return reason_; }

private:
    std::string reason_;
};

// One clip opened for training: its exact frame count and displayed size, and the frames a
// bucket asks for as the tensor the VAE takes. Decoding is frame-accurate (media's VideoReader),
// upright (rotation applied), converted with swscale's bicubic filter.
class ClipPreprocessor {
public:
    // Throws ClipError when the file is not a readable clip.
    explicit ClipPreprocessor(const std::filesystem::path& file);
    ~ClipPreprocessor();
    ClipPreprocessor(const ClipPreprocessor&) = delete;
    ClipPreprocessor& operator=(const ClipPreprocessor&) = delete;

    // Counted by demuxing the whole file, not taken from its header. Throws ClipError: with
    // reason "truncated" when the file holds fewer frames than its container lists (media's
    // check_frames, the studio's check), "corrupt" when it holds none.
    std::int64_t frame_count();
    int display_width() const;
    int display_height() const;

    // The frames `frame_indices` (ascending, as assign_bucket gives them) placed as
    // `placement` says: [1, 3, F, height, width] float32, x / 255 mapped to [-1, 1].
    // Throws ClipError when a listed frame does not decode.
    at::Tensor decode(const std::vector<std::int64_t>& frame_indices,
                      const FramePlacement& placement);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace tuneframe::data
