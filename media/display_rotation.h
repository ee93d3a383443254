// Internal: rotation stored as a display matrix on a stream, and turning RGB24 pictures.
// Degrees are always the clockwise turn that shows the picture upright (what phones call
// "rotate=90"), normalised to 0, 90, 180 or 270.
#pragma once

#include "media/ffmpeg_handles.h"

#include <cstdint>
#include <vector>

namespace tuneframe::media {

int stream_rotation_degrees(const AVStream* stream);
// Returns false when FFmpeg could not attach the side data.
bool set_stream_rotation(AVStream* stream, int degrees);
// Rounds to the nearest quarter turn and folds into [0, 360).
int normalise_rotation(double degrees);
// Turns an RGB24 picture clockwise by degrees (a multiple of 90); swaps width and height for
// quarter turns.
std::vector<uint8_t> rotate_rgb(const std::vector<uint8_t>& rgb, int& width, int& height,
                                int degrees);

} // namespace tuneframe::media
