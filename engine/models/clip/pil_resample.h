#pragma once

// Pillow's Image.resize for 8-bit images (libImaging/Resample.c), pixel for pixel: a separable
// convolution, horizontal pass first, whose filter support widens by the scale when
// downsampling; coefficients normalised to sum one, then turned into 22-bit fixed point, each
// pass rounded and clipped to uint8. CLIPImageProcessor resizes with it (through PIL), so
// pixel_values match transformers' exactly.

#include <ATen/Tensor.h>

#include <cstdint>

namespace tuneframe::models::clip {

// PIL.Image.Resampling's values, as preprocessor_config.json's "resample" stores them.
enum class PilResample : int {
    Nearest = 0,
    Lanczos = 1,
    Bilinear = 2,
    Bicubic = 3,
    Box = 4,
    Hamming = 5,
};

// uint8 [H, W, C] -> uint8 [height, width, C], every channel alike. Nearest is not supported
// (Pillow runs it through another code path). The same size returns a copy, as Pillow does.
at::Tensor pil_resize(const at::Tensor& image, std::int64_t width, std::int64_t height,
                      PilResample filter);

} // namespace tuneframe::models::clip
