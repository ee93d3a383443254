#include "engine/core/job_file.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace tuneframe::core {
namespace {

namespace fs = std::filesystem;

// Far above what the job's limits let a job hold (64 prompts of 8 KiB, 64 image paths).
constexpr std::uintmax_t kMaxJobFileBytes = 4u << 20;

// "line 3, column 7" of byte `at`, 1-based.
std::string line_and_column(const std::string& text, std::size_t at) {
    const auto before = text.begin() + static_cast<std::ptrdiff_t>(at);
    const auto line = std::count(text.begin(), before, '\n') + 1;
    const std::size_t line_end = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    const std::size_t column = line_end == std::string::npos ? at + 1 : at - line_end;
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

} // namespace

nlohmann::json read_job_json(const fs::path& file) {
    std::error_code error;
    const fs::file_status status = fs::status(file, error);
    // A FIFO would block the read until a writer comes and /dev/zero would never end.
    if (!error && fs::exists(status) && !fs::is_regular_file(status)) {
        throw Error(ErrorCode::BadInput,
                    "'" + file.string() + "' is not a regular file (a folder, device or pipe).",
                    "Name the JSON file itself.");
    }
    const std::uintmax_t size = fs::file_size(file, error);
    if (!error && size > kMaxJobFileBytes) {
        throw Error(ErrorCode::BadInput,
                    "'" + file.string() + "' is " + std::to_string(size) +
                        " bytes, more than a job or sweep grid can hold (" +
                        std::to_string(kMaxJobFileBytes) + ").",
                    "Check that this is the job's JSON file; docs/protocol.md lists each field's "
                    "limits.");
    }
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
        throw io_error("Cannot open", file.string(), errno);
    }
    const std::string text{std::istreambuf_iterator<char>(stream),
                           std::istreambuf_iterator<char>()};
    // The JSON parser stops at a NUL as at the end of the text, so `{...}\0garbage` would read
    // as `{...}`; a NUL inside a string is written \u0000 and reaches the job's reader.
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
        throw Error(ErrorCode::BadInput,
                    "'" + file.string() + "' holds a NUL byte (" + line_and_column(text, nul) +
                        "); a job file is one JSON value and nothing after it.",
                    "Remove the NUL and anything after the closing }, or write the file again.");
    }
    return read_json_file(file);
}

common::TrainingJob read_job_file(const fs::path& job_file) {
    const nlohmann::json json = read_job_json(job_file);
    try {
        return common::TrainingJob::from_json(json, job_file.string());
    } catch (const common::JobError& error) {
        throw Error(ErrorCode::BadInput, error.what(), error.hint()).with_field(error.field());
    }
}

fs::path job_relative_path(const fs::path& job_file, const std::string& path) {
    const fs::path p(path);
    return p.is_absolute() ? p : (job_file.parent_path() / p).lexically_normal();
}

} // namespace tuneframe::core
