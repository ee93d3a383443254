#include "engine/data/file_identity.h"

#include "engine/core/error.h"
#include "engine/data/sha256.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <fstream>
#include <sys/stat.h>
#include <vector>

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t kWholeFileLimit = 1u << 20;

struct stat stat_of(const fs::path& file) {
    struct stat status {};
    if (::stat(file.c_str(), &status) != 0) {
        throw core::io_error("Cannot read the size and time of", file.string(), errno);
    }
    return status;
}

std::int64_t mtime_ns(const struct stat& status) {
    return static_cast<std::int64_t>(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec;
}

// Feeds up to `limit` bytes of `file` into `hash`.
void hash_prefix(const fs::path& file, std::uintmax_t limit, Sha256& hash) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
        throw core::io_error("Cannot open", file.string(), errno);
    }
    std::array<char, 65536> chunk{};
    std::uintmax_t left = limit;
    while (left > 0 && stream) {
        stream.read(chunk.data(),
                    static_cast<std::streamsize>(std::min<std::uintmax_t>(left, chunk.size())));
        const auto got = static_cast<std::uintmax_t>(stream.gcount());
        if (got == 0) {
            break;
        }
        hash.update(chunk.data(), static_cast<std::size_t>(got));
        left -= got;
    }
    if (stream.bad()) {
        throw core::Error(core::ErrorCode::Io, "Cannot read '" + file.string() + "'.",
                          "Check the drive holding the model, or copy the model again.");
    }
}

} // namespace

nlohmann::json clip_source_identity(const common::ManifestEntry& entry, const fs::path& file) {
    if (!entry.hash.empty()) {
        return {{"hash", entry.hash}};
    }
    const struct stat status = stat_of(file);
    return {{"path", fs::absolute(file).lexically_normal().string()},
            {"size", static_cast<std::int64_t>(status.st_size)},
            {"mtime_ns", mtime_ns(status)}};
}

std::string component_identity(const fs::path& folder, bool weights_required) {
    std::vector<fs::path> files;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (!name.empty() && name.front() != '.' && it->is_regular_file()) {
            files.push_back(it->path());
        }
    }
    if (error) {
        throw core::io_error("Cannot list the model folder", folder.string(), error.value());
    }
    std::sort(files.begin(), files.end());
    const bool has_weights = std::any_of(files.begin(), files.end(), [](const fs::path& file) {
        return file.extension() == ".safetensors";
    });
    if (weights_required && !has_weights) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder '" + folder.string() +
                              "' has no weights (*.safetensors).",
                          "Copy the whole component folder from the pipeline, weights included, "
                          "or write a model with `tuneframe-engine init-model`.");
    }

    Sha256 hash;
    for (const fs::path& file : files) {
        const struct stat status = stat_of(file);
        const auto size = static_cast<std::uintmax_t>(status.st_size);
        hash.update(file.filename().string()).update("\n", 1);
        hash.update(std::to_string(size)).update("\n", 1);
        if (size > kWholeFileLimit) {
            hash.update(std::to_string(mtime_ns(status))).update("\n", 1);
        }
        hash_prefix(file, std::min(size, kWholeFileLimit), hash);
    }
    return hash.hex();
}

} // namespace tuneframe::data
