#include "media/media_error.h"

#include <utility>

namespace tuneframe::media {

const char* to_string(ErrorReason reason) {
    switch (reason) {
    case ErrorReason::None:
        return "none";
    case ErrorReason::NotFound:
        return "not_found";
    case ErrorReason::Empty:
        return "empty";
    case ErrorReason::NotAVideo:
        return "not_a_video";
    case ErrorReason::Corrupt:
        return "corrupt";
    case ErrorReason::Unsupported:
        return "unsupported";
    case ErrorReason::Io:
        return "io";
    case ErrorReason::InvalidArgument:
        return "invalid_argument";
    }
    return "unknown";
}

namespace {

std::string compose(const std::string& path, const std::string& problem, const std::string& hint,
                    const std::string& detail) {
    std::string text = "The file \"" + path + "\" " + problem;
    if (!detail.empty()) {
        text += " (FFmpeg: " + detail + ")";
    }
    text += ".";
    if (!hint.empty()) {
        text += " " + hint;
    }
    return text;
}

} // namespace

MediaError::MediaError(ErrorReason reason, std::string path, const std::string& problem,
                       std::string hint, std::string ffmpeg_detail)
    : std::runtime_error(compose(path, problem, hint, ffmpeg_detail))
    , reason_(reason)
    , path_(std::move(path))
    , hint_(std::move(hint))
    , ffmpeg_detail_(std::move(ffmpeg_detail)) {}

} // namespace tuneframe::media
