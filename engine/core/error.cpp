#include "engine/core/error.h"

#include <cerrno>
#include <cstring>

namespace tuneframe::core {

std::string_view error_code_name(ErrorCode code) {
    switch (code) {
    case ErrorCode::None:
        return "none";
    case ErrorCode::BadInput:
        return "bad_input";
    case ErrorCode::Io:
        return "io";
    case ErrorCode::Oom:
        return "oom";
    case ErrorCode::Nan:
        return "nan";
    case ErrorCode::Usage:
        return "usage";
    case ErrorCode::Unsupported:
        return "unsupported";
    case ErrorCode::Distributed:
        return "distributed";
    case ErrorCode::Internal:
        return "internal";
    }
    return "internal";
}

Error::Error(ErrorCode code, const std::string& message, std::string hint)
    : std::runtime_error(message)
    , code_(code)
    , hint_(std::move(hint)) {}

Error io_error(const std::string& what, const std::string& path, int error_number) {
    std::string hint;
    switch (error_number) {
    case ENOSPC:
    case EDQUOT:
        hint = "Free some disk space on the drive holding this file, then try again.";
        break;
    case EACCES:
    case EPERM:
    case EROFS:
        hint = "Check that you may write to this folder, or choose another one.";
        break;
    case ENOENT:
        hint = "Check the path: the file or a folder above it does not exist.";
        break;
    default:
        break;
    }
    return Error(ErrorCode::Io, what + " '" + path + "': " + std::strerror(error_number),
                 std::move(hint));
}

} // namespace tuneframe::core
