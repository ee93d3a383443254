#include "common/dataset_manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tuneframe::common {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kHashPrefix = "sha256:";
constexpr std::size_t kHashHexDigits = 64;

bool is_hash(const std::string& hash) {
    if (hash.size() != kHashPrefix.size() + kHashHexDigits || hash.rfind(kHashPrefix, 0) != 0) {
        return false;
    }
    for (std::size_t at = kHashPrefix.size(); at < hash.size(); ++at) {
        const char c = hash[at];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return false;
        }
    }
    return true;
}

// Collects the issues of one line; every helper reports against the field it reads.
class LineReader {
public:
    LineReader(const Json& object, const std::string& file, std::int64_t line,
               std::vector<ManifestIssue>& issues)
        : object_(object)
        , file_(file)
        , line_(line)
        , issues_(issues) {}

    void issue(const std::string& field, const std::string& message) {
        issues_.push_back({file_, line_, field, message});
        failed_ = true;
    }
    bool failed() const { return failed_; }

    const Json* find(const char* field) const {
        const auto found = object_.find(field);
        return found == object_.end() ? nullptr : &*found;
    }

    std::optional<std::int64_t> integer(const char* field, bool required) {
        const Json* value = find(field);
        if (value == nullptr || (!required && value->is_null())) {
            if (required) {
                issue(field, "is missing; add it as a whole number");
            }
            return std::nullopt;
        }
        if (value->is_number_unsigned()) {
            const auto unsigned_value = value->get<std::uint64_t>();
            if (unsigned_value > static_cast<std::uint64_t>(INT64_MAX)) {
                issue(field, "is too large");
                return std::nullopt;
            }
            return static_cast<std::int64_t>(unsigned_value);
        }
        if (!value->is_number_integer()) {
            issue(field, "must be a whole number, not " + value->dump());
            return std::nullopt;
        }
        return value->get<std::int64_t>();
    }

    std::optional<std::string> text(const char* field, bool required) {
        const Json* value = find(field);
        if (value == nullptr) {
            if (required) {
                issue(field, "is missing; add it as a string");
            }
            return std::nullopt;
        }
        if (!value->is_string()) {
            issue(field, "must be a string, not " + value->dump());
            return std::nullopt;
        }
        return value->get<std::string>();
    }

private:
    const Json& object_;
    const std::string& file_;
    std::int64_t line_;
    std::vector<ManifestIssue>& issues_;
    bool failed_ = false;
};

void parse_line(std::string_view line_text, const std::string& file, std::int64_t line,
                ManifestReadResult& result) {
    Json object;
    try {
        object = Json::parse(line_text);
    } catch (const Json::exception& error) {
        // parse_error, and out_of_range for a number past double's range such as 1e600.
        result.issues.push_back({file,
                                 line,
                                 {},
                                 std::string("is not valid JSON (") + error.what() +
                                     "); each line must be one JSON object"});
        return;
    }
    if (!object.is_object()) {
        result.issues.push_back(
            {file, line, {}, "is " + std::string(object.type_name()) + ", not a JSON object"});
        return;
    }
    LineReader reader(object, file, line, result.issues);
    const std::optional<std::int64_t> version = reader.integer("v", true);
    if (version && (*version < 1 || *version > kManifestVersion)) {
        reader.issue("v", *version > kManifestVersion
                              ? "is " + std::to_string(*version) +
                                    ", newer than this program reads (" +
                                    std::to_string(kManifestVersion) + "); update Tuneframe"
                              : "is " + std::to_string(*version) + "; the first version is 1");
        return;
    }

    ManifestEntry entry;
    if (auto path = reader.text("path", true)) {
        entry.path = std::move(*path);
    }
    if (auto caption = reader.text("caption", true)) {
        entry.caption = std::move(*caption);
    }
    entry.trim_in = reader.integer("trim_in", false).value_or(0);
    entry.trim_out = reader.integer("trim_out", false);
    if (const Json* image = reader.find("image"); image != nullptr && !image->is_null()) {
        if (image->is_boolean()) {
            entry.image = image->get<bool>();
        } else {
            reader.issue("image", "must be true or false, not " + image->dump());
        }
    }
    entry.condition_frame = reader.integer("condition_frame", false);
    if (auto hash = reader.text("hash", false)) {
        entry.hash = std::move(*hash);
    }
    const auto size = [&reader](const char* field) {
        const std::optional<std::int64_t> value = reader.integer(field, false);
        if (value && *value > INT32_MAX) {
            reader.issue(field, "is too large for a picture size");
            return 0;
        }
        return static_cast<int>(value.value_or(0));
    };
    entry.width = size("width");
    entry.height = size("height");
    entry.frames = reader.integer("frames", false).value_or(0);
    if (const Json* fps = reader.find("fps"); fps != nullptr && !fps->is_null()) {
        if (fps->is_number()) {
            entry.fps = fps->get<double>();
        } else {
            reader.issue("fps", "must be a number, not " + fps->dump());
        }
    }
    if (reader.failed()) {
        return;
    }
    for (ManifestIssue& issue : validate_manifest_entry(entry)) {
        issue.file = file;
        issue.line = line;
        reader.issue(issue.field, issue.message);
    }
    if (reader.failed()) {
        return;
    }
    result.entries.push_back(std::move(entry));
    result.entry_lines.push_back(line);
}

std::string system_error_text() {
    return std::strerror(errno);
}

bool write_all(int descriptor, const std::string& bytes) {
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t count = ::write(descriptor, bytes.data() + written, bytes.size() - written);
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        written += static_cast<std::size_t>(count);
    }
    return true;
}

} // namespace

std::string ManifestIssue::to_string() const {
    std::string text = file;
    if (line > 0) {
        text += ", line " + std::to_string(line);
    }
    if (!field.empty()) {
        text += ", field \"" + field + "\"";
    }
    return text + ": " + message;
}

std::vector<ManifestIssue> validate_manifest_entry(const ManifestEntry& entry) {
    std::vector<ManifestIssue> issues;
    const auto issue = [&issues](const char* field, std::string message) {
        issues.push_back({{}, 0, field, std::move(message)});
    };
    if (entry.path.empty()) {
        issue("path", "is empty; give the clip's file, absolute or relative to the manifest");
    }
    // The system reads a path only up to a NUL: "clips/a.mp4\u0000.txt" would train clips/a.mp4.
    if (const std::size_t nul = entry.path.find('\0'); nul != std::string::npos) {
        issue("path", "holds a NUL character at byte " + std::to_string(nul + 1) +
                          ", where the system would cut the path short and read another file; "
                          "remove the NUL");
    }
    if (entry.trim_in < 0) {
        issue("trim_in", "is " + std::to_string(entry.trim_in) + "; frames count from 0");
    }
    if (entry.trim_out && *entry.trim_out <= entry.trim_in) {
        issue("trim_out", "is " + std::to_string(*entry.trim_out) + ", not after trim_in (" +
                              std::to_string(entry.trim_in) +
                              "); trim_out is one past the last frame used");
    }
    if (entry.frames < 0) {
        issue("frames", "is negative; use 0 when the count is unknown");
    }
    if (entry.frames > 0 && entry.trim_out && *entry.trim_out > entry.frames) {
        issue("trim_out", "is " + std::to_string(*entry.trim_out) + ", past the clip's " +
                              std::to_string(entry.frames) + " frames");
    }
    if (entry.frames > 0 && entry.trim_in >= entry.frames) {
        issue("trim_in", "is " + std::to_string(entry.trim_in) + ", past the clip's " +
                             std::to_string(entry.frames) + " frames");
    }
    if (entry.condition_frame && (*entry.condition_frame < 0 ||
                                  (entry.frames > 0 && *entry.condition_frame >= entry.frames))) {
        issue("condition_frame",
              "is " + std::to_string(*entry.condition_frame) + ", not a frame of the clip (0 to " +
                  std::to_string(std::max<std::int64_t>(entry.frames - 1, 0)) + ")");
    }
    if (entry.image && entry.frames > 1) {
        issue("frames",
              "is " + std::to_string(entry.frames) + " for an image; an image is 1 frame");
    }
    if (entry.width < 0) {
        issue("width", "is negative; use 0 when the size is unknown");
    }
    if (entry.height < 0) {
        issue("height", "is negative; use 0 when the size is unknown");
    }
    if (!std::isfinite(entry.fps) || entry.fps < 0) {
        issue("fps", "must be a positive number, or 0 when unknown");
    }
    if (!entry.hash.empty() && !is_hash(entry.hash)) {
        issue("hash", "must be \"sha256:\" followed by 64 lower-case hex digits, or be left out");
    }
    return issues;
}

ManifestReadResult parse_manifest(std::string_view text, const std::string& file_name) {
    ManifestReadResult result;
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        text.remove_prefix(3);
    }
    std::int64_t line = 0;
    while (!text.empty()) {
        ++line;
        const std::size_t end = text.find('\n');
        std::string_view line_text = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        const std::size_t first = line_text.find_first_not_of(" \t\r");
        if (first == std::string_view::npos) {
            continue;
        }
        line_text = line_text.substr(first, line_text.find_last_not_of(" \t\r") - first + 1);
        parse_line(line_text, file_name, line, result);
    }
    return result;
}

ManifestReadResult read_manifest(const std::filesystem::path& file) {
    // A FIFO would block the open until a writer comes and /dev/zero would never end.
    std::error_code type_error;
    const std::filesystem::file_type type = std::filesystem::status(file, type_error).type();
    if (type != std::filesystem::file_type::regular &&
        type != std::filesystem::file_type::not_found && !type_error) {
        ManifestReadResult result;
        result.issues.push_back({file.string(),
                                 0,
                                 {},
                                 "is not a regular file (a folder, device, pipe or socket); name "
                                 "the dataset's JSON Lines file"});
        return result;
    }
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
        ManifestReadResult result;
        result.issues.push_back({file.string(),
                                 0,
                                 {},
                                 "cannot be opened (" + system_error_text() +
                                     "); check that the file exists and is readable"});
        return result;
    }
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    if (stream.bad()) {
        ManifestReadResult result;
        result.issues.push_back(
            {file.string(), 0, {}, "could not be read to the end; copy the file again"});
        return result;
    }
    return parse_manifest(bytes.str(), file.string());
}

std::string format_manifest_line(const ManifestEntry& entry) {
    // ordered_json keeps "v" and "path" first, so the file reads well in a text editor.
    nlohmann::ordered_json line;
    line["v"] = kManifestVersion;
    line["path"] = entry.path;
    line["caption"] = entry.caption;
    line["trim_in"] = entry.trim_in;
    line["trim_out"] = entry.trim_out ? nlohmann::ordered_json(*entry.trim_out) : nullptr;
    line["image"] = entry.image;
    if (!entry.hash.empty()) {
        line["hash"] = entry.hash;
    }
    if (entry.width > 0 && entry.height > 0) {
        line["width"] = entry.width;
        line["height"] = entry.height;
    }
    if (entry.frames > 0) {
        line["frames"] = entry.frames;
    }
    if (entry.fps > 0) {
        line["fps"] = entry.fps;
    }
    if (entry.condition_frame) {
        line["condition_frame"] = *entry.condition_frame;
    }
    try {
        return line.dump();
    } catch (const nlohmann::ordered_json::type_error&) {
        throw std::invalid_argument("the path or caption of \"" + entry.path +
                                    "\" is not valid UTF-8");
    }
}

std::string format_manifest(const std::vector<ManifestEntry>& entries) {
    std::string text;
    for (const ManifestEntry& entry : entries) {
        text += format_manifest_line(entry);
        text += '\n';
    }
    return text;
}

bool write_manifest(const std::filesystem::path& file, const std::vector<ManifestEntry>& entries,
                    std::string* error) {
    std::string bytes;
    try {
        for (std::size_t index = 0; index < entries.size(); ++index) {
            const std::vector<ManifestIssue> issues = validate_manifest_entry(entries[index]);
            if (!issues.empty()) {
                *error = "cannot write " + file.string() + ": entry " + std::to_string(index + 1) +
                         " (" + entries[index].path + "), field \"" + issues.front().field + "\" " +
                         issues.front().message;
                return false;
            }
        }
        bytes = format_manifest(entries);
    } catch (const std::invalid_argument& invalid) {
        *error = "cannot write " + file.string() + ": " + invalid.what();
        return false;
    }

    std::string temporary = file.string() + ".tmp-XXXXXX";
    const int descriptor = ::mkstemp(temporary.data());
    if (descriptor < 0) {
        *error = "cannot create a file next to " + file.string() + " (" + system_error_text() +
                 "); choose a folder you can write to";
        return false;
    }
    // mkstemp creates the file private to its owner; a manifest is an ordinary document.
    const bool written =
        ::fchmod(descriptor, 0644) == 0 && write_all(descriptor, bytes) && ::fsync(descriptor) == 0;
    const std::string write_problem = written ? std::string() : system_error_text();
    const bool closed = ::close(descriptor) == 0;
    if (!written || !closed || ::rename(temporary.c_str(), file.c_str()) != 0) {
        const std::string problem = write_problem.empty() ? system_error_text() : write_problem;
        ::unlink(temporary.c_str());
        *error = "cannot write " + file.string() + " (" + problem +
                 "); check that the disk is not full and the folder is writable";
        return false;
    }
    // The rename is durable only once the folder's entry is on disk.
    const std::filesystem::path folder = file.has_parent_path() ? file.parent_path() : ".";
    const int folder_descriptor = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    if (folder_descriptor >= 0) {
        ::fsync(folder_descriptor);
        ::close(folder_descriptor);
    }
    return true;
}

std::filesystem::path resolve_manifest_path(const ManifestEntry& entry,
                                            const std::filesystem::path& manifest_file) {
    const std::filesystem::path path = std::filesystem::u8path(entry.path);
    if (path.is_absolute()) {
        return path.lexically_normal();
    }
    const std::filesystem::path folder = std::filesystem::absolute(manifest_file).parent_path();
    return (folder / path).lexically_normal();
}

namespace {

// Whether path, clean and absolute, is folder or lies under it.
bool leads_inside(const std::filesystem::path& path, const std::filesystem::path& folder) {
    const std::filesystem::path inside = path.lexically_relative(folder);
    return !inside.empty() && *inside.begin() != "..";
}

} // namespace

std::string manifest_path_outside_problem(const ManifestEntry& entry,
                                          const std::filesystem::path& manifest_file) {
    namespace fs = std::filesystem;
    const fs::path path = fs::u8path(entry.path);
    const fs::path relative = path.lexically_normal();
    if (!path.is_absolute() && !relative.empty() && *relative.begin() == "..") {
        return "leads out of the manifest's folder through \"..\"";
    }
    // weakly_canonical resolves the links of the part that exists; a missing clip is reported
    // later as missing.
    std::error_code folder_error;
    std::error_code target_error;
    const fs::path folder =
        fs::weakly_canonical(fs::absolute(manifest_file).parent_path(), folder_error);
    const fs::path target =
        fs::weakly_canonical(resolve_manifest_path(entry, manifest_file), target_error);
    if (folder_error || target_error) {
        return "cannot be examined (" + (folder_error ? folder_error : target_error).message() +
               ")";
    }
    if (!leads_inside(target, folder)) {
        // An absolute path is judged by where it leads, as a relative one is; the message says
        // whether it names another place outright or gets there through a link.
        const fs::path lexical_folder =
            fs::absolute(manifest_file).parent_path().lexically_normal();
        if (path.is_absolute() && !leads_inside(relative, lexical_folder)) {
            return "is an absolute path, outside the manifest's folder";
        }
        return "is reached through a symbolic link that leads out of the manifest's folder";
    }
    return {};
}

} // namespace tuneframe::common
