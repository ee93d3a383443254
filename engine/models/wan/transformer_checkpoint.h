#pragma once

#include "engine/models/wan/transformer_wan.h"

#include <cstdint>
#include <filesystem>
#include <optional>

namespace tuneframe::models::wan {

struct TransformerLoadOptions {
    // Unset: the dtype most of the checkpoint's tensors are stored in (bf16 for a file of fp8
    // weights alone).
    std::optional<torch::Dtype> dtype;
    torch::Device device = torch::kCPU;
    // For original / ComfyUI files, whose heads are not in the file: unset, width / 128 (every
    // released Wan) or the original config.json's num_heads.
    std::optional<std::int64_t> num_attention_heads;
    // The blocks' Linear weights quantized as they are read (models::TransformerLoadOptions).
    lora::BaseQuantization quantization = lora::BaseQuantization::None;
};

// Loads a Wan transformer from
// - a diffusers `transformer/` folder: config.json plus one .safetensors file or shards with a
//   `*.safetensors.index.json`, streamed one tensor at a time (load_weights_streaming);
// - an original Wan-AI folder (config.json of a "WanModel" and its shards) or a single original
//   / ComfyUI .safetensors file (keys optionally under "model.diffusion_model."), renamed as
//   original_keys.h says, with the config inferred from the tensors' shapes.
// Weights stored in fp32, bf16, fp16 or fp8 (F8_E4M3 / F8_E5M2, times ComfyUI's per-tensor or
// per-channel scale_weight where present) are converted to the model's dtype as they are copied.
// Missing, unexpected or mis-shaped tensors, and files that are not a Wan transformer, are one
// BadInput error naming the file.
WanTransformer3DModel load_wan_transformer(const std::filesystem::path& folder_or_file,
                                           const TransformerLoadOptions& options = {});

// Writes config.json and the weights (LoRA adapters excluded) into `folder` in diffusers'
// layout, sharded past `max_shard_bytes`. Returns the weight file or index.
std::filesystem::path save_wan_transformer(const WanTransformer3DModel& model,
                                           const std::filesystem::path& folder,
                                           std::uint64_t max_shard_bytes = 5'000'000'000);

} // namespace tuneframe::models::wan
