#include "engine/data/latent_cache.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFormat = "tuneframe-latent-cache";
constexpr const char* kKindFolders[] = {"video_latents", "image_latents", "prompt_embeds",
                                        "image_embeds"};

const char* kind_folder(CacheEntryKind kind) {
    switch (kind) {
    case CacheEntryKind::Video:
        return kKindFolders[0];
    case CacheEntryKind::Image:
        return kKindFolders[1];
    case CacheEntryKind::Prompt:
        return kKindFolders[2];
    case CacheEntryKind::ImageEmbeds:
        return kKindFolders[3];
    case CacheEntryKind::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "a cache key without a kind");
}

std::vector<const char*> tensor_names(CacheEntryKind kind) {
    if (kind == CacheEntryKind::Prompt) {
        return {"prompt_embeds"};
    }
    if (kind == CacheEntryKind::ImageEmbeds) {
        return {"image_embeds"};
    }
    return {"mean", "logvar"};
}

at::Tensor take(std::map<std::string, at::Tensor>& tensors, const std::string& name,
                const fs::path& file) {
    auto it = tensors.find(name);
    if (it == tensors.end()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The cache entry '" + file.string() + "' has no tensor '" + name + "'.",
                          "Delete the file and run `tuneframe-engine prepare` again.");
    }
    return it->second;
}

void require_entry(const fs::path& file) {
    if (!fs::is_regular_file(file)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The cache entry '" + file.string() + "' is missing.",
                          "Run `tuneframe-engine prepare` on the job again to rebuild it.");
    }
}

std::map<std::string, at::Tensor> read_entry(const fs::path& file) {
    require_entry(file);
    return core::read_tensors(file);
}

} // namespace

LatentCache::LatentCache(fs::path root)
    : root_(std::move(root)) {}

fs::path LatentCache::relative_path(const CacheKey& key) {
    return fs::path(kind_folder(key.kind())) / key.hex().substr(0, 2) /
           (key.hex() + ".safetensors");
}

CacheEntryState LatentCache::state(const CacheKey& key) const {
    const fs::path file = path(key);
    std::error_code error;
    if (!fs::exists(file, error)) {
        return CacheEntryState::Absent;
    }
    try {
        const core::SafetensorsFile entry(file);
        const auto& metadata = entry.metadata();
        const auto named = [&](const char* field, const std::string& value) {
            auto it = metadata.find(field);
            return it != metadata.end() && it->second == value;
        };
        if (!named("format", kFormat) || !named("key", key.hex())) {
            return CacheEntryState::Damaged;
        }
        for (const char* name : tensor_names(key.kind())) {
            if (!entry.find(name)) {
                return CacheEntryState::Damaged;
            }
        }
        return CacheEntryState::Present;
    } catch (const core::Error&) {
        return CacheEntryState::Damaged;
    }
}

void LatentCache::write(const CacheKey& key,
                        const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                        const std::map<std::string, std::string>& details) const {
    const fs::path file = path(key);
    std::error_code error;
    fs::create_directories(file.parent_path(), error);
    if (error) {
        throw core::io_error("Cannot create the cache folder", file.parent_path().string(),
                             error.value());
    }
    std::map<std::string, std::string> metadata = details;
    metadata["format"] = kFormat;
    metadata["cache_version"] = std::to_string(kVersion);
    metadata["kind"] = std::string(to_string(key.kind()));
    metadata["key"] = key.hex();
    metadata["key_inputs"] = key.canonical_text();
    core::write_tensors(file, tensors, metadata);
}

void LatentCache::write_moments(const CacheKey& key, const Moments& moments,
                                const std::map<std::string, std::string>& details) const {
    if (key.kind() == CacheEntryKind::Prompt || key.kind() == CacheEntryKind::ImageEmbeds) {
        throw core::Error(core::ErrorCode::Internal, "moments written under an embeddings key");
    }
    write(key, {{"mean", moments.mean}, {"logvar", moments.logvar}}, details);
}

void LatentCache::write_prompt(const CacheKey& key, const at::Tensor& prompt_embeds,
                               const std::map<std::string, std::string>& details) const {
    if (key.kind() != CacheEntryKind::Prompt) {
        throw core::Error(core::ErrorCode::Internal,
                          "prompt embeddings written under a latent key");
    }
    write(key, {{"prompt_embeds", prompt_embeds}}, details);
}

void LatentCache::write_image_embeds(const CacheKey& key, const at::Tensor& image_embeds,
                                     const std::map<std::string, std::string>& details) const {
    if (key.kind() != CacheEntryKind::ImageEmbeds) {
        throw core::Error(core::ErrorCode::Internal, "image embeddings written under another key");
    }
    write(key, {{"image_embeds", image_embeds}}, details);
}

Moments LatentCache::read_moments(const fs::path& relative) const {
    const fs::path file = root_ / relative;
    auto tensors = read_entry(file);
    return {take(tensors, "mean", file), take(tensors, "logvar", file)};
}

at::Tensor LatentCache::read_prompt(const fs::path& relative) const {
    const fs::path file = root_ / relative;
    auto tensors = read_entry(file);
    return take(tensors, "prompt_embeds", file);
}

std::map<std::string, std::string> LatentCache::read_metadata(const fs::path& relative) const {
    const fs::path file = root_ / relative;
    require_entry(file);
    return core::SafetensorsFile(file).metadata();
}

std::size_t LatentCache::remove_stale_temporaries(std::chrono::seconds age) const {
    const auto cutoff = fs::file_time_type::clock::now() - age;
    std::size_t removed = 0;
    for (const char* kind : kKindFolders) {
        std::error_code error;
        fs::recursive_directory_iterator it(root_ / kind, error);
        for (const fs::recursive_directory_iterator end; !error && it != end; it.increment(error)) {
            const std::string name = it->path().filename().string();
            if (name.empty() || name.front() != '.' || name.find(".tmp-") == std::string::npos) {
                continue;
            }
            std::error_code ignored;
            const auto written = fs::last_write_time(it->path(), ignored);
            if (!ignored && written < cutoff && fs::remove(it->path(), ignored)) {
                ++removed;
            }
        }
    }
    return removed;
}

} // namespace tuneframe::data
