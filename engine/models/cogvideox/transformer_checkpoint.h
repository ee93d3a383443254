#pragma once

#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <filesystem>
#include <optional>

namespace tuneframe::models::cogvideox {

using models::TransformerLoadOptions;

// Loads a diffusers `transformer/` folder: config.json plus one .safetensors file or shards
// with a `*.safetensors.index.json`. The model is built directly in the target dtype and the
// shards are streamed one tensor at a time (see load_module_weights), so peak host memory is
// about the model's own size. Any missing, unexpected or mis-shaped key is an error.
CogVideoXTransformer3DModel load_cogvideox_transformer(const std::filesystem::path& folder,
                                                       const TransformerLoadOptions& options = {});

// Writes config.json and the weights (LoRA adapters excluded) into `folder` in diffusers'
// layout, sharded past `max_shard_bytes`. Returns the weight file or index.
std::filesystem::path save_cogvideox_transformer(const CogVideoXTransformer3DModel& model,
                                                 const std::filesystem::path& folder,
                                                 std::uint64_t max_shard_bytes = 5'000'000'000);

} // namespace tuneframe::models::cogvideox
