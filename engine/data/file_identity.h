#pragma once

#include "common/dataset_manifest.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

// What the latent cache's keys say about files: which clip a latent came from and which model
// weights made it (engine/data/cache_key.h puts these into the keys).
namespace tuneframe::data {

// The clip's identity: {"hash": "sha256:…"} when the manifest carries the content hash (the
// file may then move or be copied without losing its cache entries), otherwise
// {"path": absolute path, "size": bytes, "mtime_ns": modification time}, so a clip edited in
// place gets new entries. Throws core::Error (Io) naming the file when it cannot be stat'ed.
nlohmann::json clip_source_identity(const common::ManifestEntry& entry,
                                    const std::filesystem::path& file);

// The identity of a model component folder (vae/, text_encoder/, tokenizer/): SHA-256 over
// every regular file's name and, for files up to 1 MiB (configs, the tokenizer), their bytes;
// for larger ones (weights) their size, modification time and first MiB, which holds a
// safetensors file's whole header. Hashing gigabytes of T5 weights on every run would cost
// more than the run; a weight file rewritten with the same size in the same nanosecond is not
// a case worth that. Hidden files (atomic writers' temporaries) are left out. Throws
// core::Error (BadInput) when `weights_required` and the folder holds no *.safetensors.
std::string component_identity(const std::filesystem::path& folder, bool weights_required);

} // namespace tuneframe::data
