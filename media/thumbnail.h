// thumbnail(): a quick preview picture, not frame-accurate. It seeks to the keyframe at or
// before time_seconds and returns the first picture decoded there, scaled to fit a
// max_side x max_side box (never enlarged) with the rotation applied.
//   Frame preview = media::thumbnail("clip.mp4", 2.0, 256);
#pragma once

#include "media/frame.h"
#include "media/media_error.h"

#include <string>

namespace tuneframe::media {

// max_side 0 keeps the displayed size. time_seconds past the end gives the last keyframe.
// Frame::index is estimated from the timestamp and the frame rate.
Frame thumbnail(const std::string& path, double time_seconds, int max_side);

} // namespace tuneframe::media
