#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tuneframe::test {

// The colour of frame k of a flat-colour video: far apart from frame to frame, so H.264's
// losses cannot make one look like another.
std::array<std::uint8_t, 3> flat_colour(int frame);

// An MP4 of `frames` frames, each one flat_colour(k) all over.
void write_flat_colour_video(const std::string& path, int frames, int width, int height);

} // namespace tuneframe::test
