#pragma once

#include "engine/data/cache_key.h"

#include <ATen/Tensor.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::data {

// A VAE posterior's moments, unscaled and unsampled (the trainer samples them every step, as
// cogvideox-factory's --load_tensors does).
struct Moments {
    at::Tensor mean;   // [C, F, h, w]; F = 1 for an image-to-video first frame
    at::Tensor logvar; // [C, F, h, w], clamped to [-30, 20] by the VAE
};

enum class CacheEntryState {
    Absent,
    Present,
    Damaged, // a file is there but is not this key's complete entry; it is rewritten
};

// The latent cache: one safetensors file per entry, named by its key (cache_key.h),
//   <root>/video_latents/<k0k1>/<key>.safetensors   "mean", "logvar"  [C, F, h, w]
//   <root>/image_latents/<k0k1>/<key>.safetensors   "mean", "logvar"  [C, 1, h, w]
//   <root>/prompt_embeds/<k0k1>/<key>.safetensors   "prompt_embeds"   [L, D]
//   <root>/image_embeds/<k0k1>/<key>.safetensors    "image_embeds"    [tokens, D] (Wan 2.1 I2V)
// (<k0k1>: the key's first two hex digits, so no folder grows past a few thousand files).
// Metadata: format "tuneframe-latent-cache", cache_version, kind, key, key_inputs (the hashed
// JSON), and what the writer adds (source, bucket, caption). Every write is atomic (temporary
// file, fsync, rename), so an entry is complete or absent: a killed prepare resumes where it
// stopped, and runs sharing the cache never see half a file.
class LatentCache {
public:
    static constexpr int kVersion = 1;

    explicit LatentCache(std::filesystem::path root);

    const std::filesystem::path& root() const { return root_; }
    // Relative to the root, as prepared.jsonl records it.
    static std::filesystem::path relative_path(const CacheKey& key);
    std::filesystem::path path(const CacheKey& key) const { return root_ / relative_path(key); }

    // Present: the file opens, names this key and holds its kind's tensors.
    CacheEntryState state(const CacheKey& key) const;

    // Tensors are stored as they are (dtype included), moved to the CPU. Throws core::Error
    // (Io) naming the file when the cache cannot be written (a full disk among them).
    void write_moments(const CacheKey& key, const Moments& moments,
                       const std::map<std::string, std::string>& details = {}) const;
    void write_prompt(const CacheKey& key, const at::Tensor& prompt_embeds,
                      const std::map<std::string, std::string>& details = {}) const;
    void write_image_embeds(const CacheKey& key, const at::Tensor& image_embeds,
                            const std::map<std::string, std::string>& details = {}) const;

    // `relative`: as relative_path() gives it. Throws core::Error (BadInput) naming the file
    // when it is missing or lacks the tensors.
    Moments read_moments(const std::filesystem::path& relative) const;
    at::Tensor read_prompt(const std::filesystem::path& relative) const;
    std::map<std::string, std::string> read_metadata(const std::filesystem::path& relative) const;

    // Removes the temporaries of writers that were killed, once older than `age` (younger ones
    // may belong to a prepare running now on the same cache). Returns how many went.
    std::size_t remove_stale_temporaries(std::chrono::seconds age) const;

private:
    void write(const CacheKey& key, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
               const std::map<std::string, std::string>& details) const;

    std::filesystem::path root_;
};

} // namespace tuneframe::data
