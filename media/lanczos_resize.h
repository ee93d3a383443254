// resize_lanczos: Pillow's Image.resize(size, Image.LANCZOS) for RGB24 frames, to the bit.
// Diffusers' image-to-video pipelines resize the conditioning image with Pillow's Lanczos
// filter; using the same fixed-point two-pass filter here means a picture given to `sample`
// becomes the same tensor it would in Python.
#pragma once

#include "media/frame.h"

namespace tuneframe::media {

// A width x height copy of `frame` (aspect ratio not kept). Throws std::invalid_argument for an
// empty frame or a size below 1: callers check sizes users give before resizing.
Frame resize_lanczos(const Frame& frame, int width, int height);

} // namespace tuneframe::media
