// MediaError: the one exception media/ throws. It names the file, a reason code the studio maps
// to translated text, a hint that names the fix, and FFmpeg's own error string when there is one.
//   what()   "The file "/clips/a.mp4" is empty (0 bytes). Copy the clip again ..."
//   reason() ErrorReason::Empty
#pragma once

#include <stdexcept>
#include <string>

namespace tuneframe::media {

enum class ErrorReason {
    None,
    NotFound,        // no such file
    Empty,           // zero bytes
    NotAVideo,       // readable, but not a container with a video stream (or a folder)
    Corrupt,         // a video, but damaged or truncated
    Unsupported,     // a codec or feature this FFmpeg build lacks
    Io,              // the operating system refused (permissions, disk full)
    InvalidArgument, // the caller asked for something impossible (frame out of range, odd size)
};

// Stable lower-case name for logs and JSON ("not_found", "corrupt", ...).
const char* to_string(ErrorReason reason);

class MediaError : public std::runtime_error {
public:
    // problem completes "The file "<path>" ...", e.g. "is empty (0 bytes)".
    MediaError(ErrorReason reason, std::string path, const std::string& problem, std::string hint,
               std::string ffmpeg_detail = {});

    ErrorReason reason() const { return reason_; }
    const std::string& path() const { return path_; }
    const std::string& hint() const { return hint_; }
    // FFmpeg's av_strerror text for the failing call; empty when FFmpeg was not involved.
    const std::string& ffmpeg_detail() const { return ffmpeg_detail_; }

private:
    ErrorReason reason_;
    std::string path_;
    std::string hint_;
    std::string ffmpeg_detail_;
};

} // namespace tuneframe::media
