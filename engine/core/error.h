#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace tuneframe::core {

// The `code` of an `error` event; the studio maps each to a translated explanation.
enum class ErrorCode {
    None,
    BadInput, // a file or value the user supplied is wrong
    Io,       // the file system failed (missing file, full disk, permissions)
    Oom,      // device or host memory ran out
    Nan,      // the loss or a gradient stopped being finite
    Usage,    // the command line is wrong
    Unsupported,
    Distributed, // another rank failed, or a collective timed out
    Internal,
};

std::string_view error_code_name(ErrorCode code);

// An error a user can act on: the message names the file or value, the hint names the fix.
class Error : public std::runtime_error {
public:
    Error(ErrorCode code, const std::string& message, std::string hint = {});

    ErrorCode code() const { return code_; }
    const std::string& hint() const { return hint_; }
    // The job field at fault ("lora.rank", "dataset.frame_buckets"), so the studio can show the
    // message beside it; empty when the error is not about one field.
    const std::string& field() const { return field_; }
    Error& with_field(std::string field) {
        field_ = std::move(field);
        return *this;
    }

private:
    ErrorCode code_;
    std::string hint_;
    std::string field_;
};

// An Io error for a failed system call on `path`, with errno's text and a hint for the common
// causes (no space, no permission, missing folder). A write that ran out of room also says how
// much is left on the drive ("... No space left on device (12.0 KiB free on its drive)").
Error io_error(const std::string& what, const std::string& path, int error_number);
// The same for a std::filesystem call that failed: its own text ("cannot create directories:
// No space left on device [/runs/a/validation]"), with the free space and the hint.
Error io_error(const std::filesystem::filesystem_error& error);

} // namespace tuneframe::core
