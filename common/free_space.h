#pragma once

// How much room is left on the drive that holds a file, for the messages of writes that failed
// for want of it. Header-only so that media/, which links nothing of ours, says it as the
// engine does.

#include <sys/statvfs.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

namespace tuneframe::common {

// Whether a write failed for want of room: a full drive, a quota, or a file past the largest
// the file system (FAT32: 4 GiB) or the process's limit (ulimit -f) allows.
inline bool is_out_of_space(int error_number) {
    return error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG;
}

// Bytes an ordinary process may still write on the drive holding `path`: asked of the file, or
// of the nearest folder above it that exists. nullopt when the file system does not say.
inline std::optional<std::uint64_t> free_bytes(const std::filesystem::path& path) {
    std::filesystem::path probe = path.empty() ? std::filesystem::path(".") : path;
    for (;;) {
        struct statvfs stats {};
        if (::statvfs(probe.c_str(), &stats) == 0) {
            return static_cast<std::uint64_t>(stats.f_bavail) * stats.f_frsize;
        }
        if (errno != ENOENT && errno != ENOTDIR) {
            return std::nullopt;
        }
        std::filesystem::path parent = probe.has_relative_path() ? probe.parent_path() : probe;
        if (parent.empty()) {
            parent = ".";
        }
        if (parent == probe) {
            return std::nullopt;
        }
        probe = parent;
    }
}

// "1.4 MiB free on its drive" (bytes under a KiB, then KiB, MiB, GiB, TiB), or empty when the
// file system does not say.
inline std::string free_space_text(const std::filesystem::path& path) {
    const std::optional<std::uint64_t> bytes = free_bytes(path);
    if (!bytes) {
        return {};
    }
    if (*bytes < 1024) {
        return std::to_string(*bytes) + " bytes free on its drive";
    }
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(*bytes) / 1024.0;
    std::size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        ++unit;
    }
    char text[64];
    std::snprintf(text, sizeof text, "%.1f %s free on its drive", value, units[unit]);
    return text;
}

} // namespace tuneframe::common
