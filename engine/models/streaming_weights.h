#pragma once

#include "engine/core/safetensors/safetensors_checkpoint.h"

#include <torch/nn/module.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>

// Checkpoint I/O for modules whose named_parameters()/named_buffers() equal the checkpoint
// keys, for real-size models: loading releases each tensor's mapped pages once copied, and
// saving shards. Generic, like engine/models/module_weights.h (which the VAE and T5 use);
// the two belong together in engine/core.
namespace tuneframe::models {

// The floating dtype most of a checkpoint's tensors are stored in (its "stored dtype").
torch::Dtype stored_dtype(const core::SafetensorsCheckpoint& checkpoint);

struct LoadWeightsOptions {
    // Buffers (5b-I2V's pos_embedding) take the file's dtype instead of the module's, so a
    // load "in the stored dtype" keeps a float64 table float64. Parameters always keep the
    // module's dtype: build the module in the dtype you want.
    bool buffers_in_stored_dtype = true;
    // Module tensors that are not checkpoint keys (LoRA adapters); skipped both ways.
    std::function<bool(const std::string&)> ignore;
    // Takes a file tensor (a view of the mapped file) for module tensor `name` and stores it
    // itself, returning true (a quantized base's weight); false: copied as usual.
    std::function<bool(const std::string& name, const at::Tensor& source)> store;
    // Tolerate module tensors the file lacks (they keep their values); unexpected and
    // mis-shaped keys are errors regardless.
    bool allow_missing = false;
    std::string model_name = "the model"; // for messages: "CogVideoXTransformer3DModel"
};

// Copies every tensor of `checkpoint` into `module`, shard by shard in file order, converting
// dtypes on the way. Each tensor's pages of the memory map are released once copied, so peak
// host memory stays near the module's own size however large the shards are. Missing,
// unexpected and mis-shaped keys are one error listing them; nothing is copied in that case.
void load_weights_streaming(torch::nn::Module& module,
                            const core::SafetensorsCheckpoint& checkpoint,
                            const LoadWeightsOptions& options = {});

struct SaveWeightsOptions {
    std::string file_stem = "diffusion_pytorch_model"; // diffusers' weight file name
    // The official CogVideoX 5b repositories use 5 GB shards; anything larger is split.
    std::uint64_t max_shard_bytes = 5'000'000'000;
    std::map<std::string, std::string> metadata = {{"format", "pt"}};
    std::function<bool(const std::string&)> ignore;
};

// Writes the module's parameters and buffers into `folder` as one .safetensors file, or as
// shards `STEM-0000k-of-0000n.safetensors` with `STEM.safetensors.index.json`. Returns the
// weight file or index written.
std::filesystem::path save_weights_sharded(const torch::nn::Module& module,
                                           const std::filesystem::path& folder,
                                           const SaveWeightsOptions& options = {});

} // namespace tuneframe::models
