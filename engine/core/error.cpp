#include "engine/core/error.h"

#include "common/free_space.h"

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

namespace {

std::string hint_for(int error_number) {
    switch (error_number) {
    case ENOSPC:
    case EDQUOT:
        return "Free some disk space on the drive holding this file, then try again.";
    case EFBIG:
        return "The file grew past the largest this drive (FAT32: 4 GiB) or the process's file "
               "size limit (ulimit -f) allows: write to another drive, or raise the limit.";
    case EACCES:
    case EPERM:
    case EROFS:
        return "Check that you may write to this folder, or choose another one.";
    case ENOENT:
        return "Check the path: the file or a folder above it does not exist.";
    default:
        return {};
    }
}

// " (12.0 KiB free on its drive)" after a write that ran out of room, or nothing.
std::string room_left(const std::string& path, int error_number) {
    if (!common::is_out_of_space(error_number)) {
        return {};
    }
    const std::string room = common::free_space_text(path);
    return room.empty() ? room : " (" + room + ")";
}

} // namespace

Error io_error(const std::string& what, const std::string& path, int error_number) {
    return Error(ErrorCode::Io,
                 what + " '" + path + "': " + std::strerror(error_number) +
                     room_left(path, error_number),
                 hint_for(error_number));
}

Error io_error(const std::filesystem::filesystem_error& error) {
    const int error_number = error.code().value();
    return Error(ErrorCode::Io,
                 std::string(error.what()) + room_left(error.path1().string(), error_number),
                 hint_for(error_number));
}

} // namespace tuneframe::core
