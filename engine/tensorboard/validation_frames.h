#pragma once

#include "engine/tensorboard/png_image.h"

#include <filesystem>

namespace tuneframe::tensorboard {

// The first, middle and last frames of a validation video side by side, each scaled to at
// most `max_height` rows (never enlarged), decoded through media/. Throws media::MediaError for
// a file that is not a readable video.
RgbImage validation_strip(const std::filesystem::path& video, int max_height);

} // namespace tuneframe::tensorboard
