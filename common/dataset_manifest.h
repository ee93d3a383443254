#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// The dataset manifest: JSON Lines, one clip per line, written by the studio's export and read
// by the engine's prepare (docs/protocol.md, "Dataset manifest"). This file is the one
// definition of its fields; both programs compile it.
//   {"v":1,"path":"clips/a.mp4","caption":"a cat","trim_in":0,"trim_out":49,"image":false,
//    "hash":"sha256:…","width":720,"height":480,"frames":120,"fps":24.0,"condition_frame":12}
namespace tuneframe::common {

inline constexpr int kManifestVersion = 1;

struct ManifestEntry {
    std::string path; // UTF-8; absolute, or relative to the manifest's folder
    std::string caption;
    std::int64_t trim_in = 0;             // first frame used
    std::optional<std::int64_t> trim_out; // one past the last frame used; nullopt: to the end
    bool image = false;                   // a still picture, used as a one-frame clip
    std::string hash;                     // "sha256:" + 64 lower-case hex digits, or empty
    int width = 0;                        // displayed size after rotation; 0: unknown
    int height = 0;
    std::int64_t frames = 0; // frames in the whole file; 0: unknown
    double fps = 0.0;        // 0: unknown (and for images)
    // Image-to-video: the frame of the file (0-based) whose picture conditions the clip;
    // nullopt: the first frame used (trim_in).
    std::optional<std::int64_t> condition_frame;
};

// One problem with one line: the reader names the file, the 1-based line and the field, and
// the message says what to change.
struct ManifestIssue {
    std::string file;
    std::int64_t line = 0; // 0: the file as a whole
    std::string field;     // empty: the line as a whole
    std::string message;

    // "data.jsonl, line 3, field "trim_out": …"
    std::string to_string() const;
};

struct ManifestReadResult {
    std::vector<ManifestEntry> entries;
    std::vector<std::int64_t> entry_lines; // the line each entry came from
    std::vector<ManifestIssue> issues;     // lines with a problem are left out of entries

    bool ok() const { return issues.empty(); }
};

// Reads every line; a bad line becomes an issue and the others are still returned, so prepare
// can skip one bad clip and say which. Blank lines are ignored, as are fields this version does
// not know; a line whose "v" is newer than kManifestVersion is an issue.
ManifestReadResult parse_manifest(std::string_view text, const std::string& file_name);
// Reads file only when it is a regular file: a FIFO or a device is one issue, never opened.
ManifestReadResult read_manifest(const std::filesystem::path& file);

// The entry's problems, as the reader would report them (line 0, file empty).
std::vector<ManifestIssue> validate_manifest_entry(const ManifestEntry& entry);

// One JSON line without the newline. Throws std::invalid_argument naming the field when a
// string is not valid UTF-8.
std::string format_manifest_line(const ManifestEntry& entry);
// Every entry, one line each, each ending in '\n'.
std::string format_manifest(const std::vector<ManifestEntry>& entries);
// Atomically (temporary file, fsync, rename) writes format_manifest(entries) to file. Returns
// false and sets *error (naming the file and the fix) when it cannot.
bool write_manifest(const std::filesystem::path& file, const std::vector<ManifestEntry>& entries,
                    std::string* error);

// entry.path made absolute against the folder of manifest_file.
std::filesystem::path resolve_manifest_path(const ManifestEntry& entry,
                                            const std::filesystem::path& manifest_file);

// Why entry.path leaves the folder of manifest_file: an absolute path elsewhere, a ".." that
// climbs out, or a symbolic link (of the part that exists) that leads elsewhere. Empty when it
// stays inside, absolute paths to files inside the folder included. A manifest from elsewhere may
// only name files inside its folder unless the job allows otherwise (dataset.allow_paths_outside),
// so a downloaded dataset cannot make prepare read other files of the machine.
std::string manifest_path_outside_problem(const ManifestEntry& entry,
                                          const std::filesystem::path& manifest_file);

} // namespace tuneframe::common
