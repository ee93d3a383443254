#pragma once

// Between tensors and media/'s RGB24 frames: the sampler's videos become MP4 files, and pictures
// and clips become tensors. Without FFmpeg (a headless GPU build) every call throws an
// Unsupported error saying so.

#include <ATen/Tensor.h>

#include <filesystem>

namespace tuneframe::core {

// video: [F, 3, H, W] float in [0, 1] (any device); written as H.264 MP4 at `fps`, atomically.
// Values are rounded to 8 bits as diffusers' export_to_video does (x * 255, rounded).
void write_video_file(const at::Tensor& video, const std::filesystem::path& path, int fps);

// The first frame of any picture or video FFmpeg reads, as [1, 3, height, width] float32 in
// [0, 1]; resized with Pillow's Lanczos filter when its size differs (aspect ratio not kept, as
// diffusers' image processor does). height/width 0 keep the picture's own size.
at::Tensor read_image_file(const std::filesystem::path& path, std::int64_t height = 0,
                           std::int64_t width = 0);

} // namespace tuneframe::core
