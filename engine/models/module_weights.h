#pragma once

// Loading a LibTorch module's parameters from a safetensors checkpoint whose keys are the
// module's own parameter names. Used by the T5 encoder and the CogVideoX VAE; the
// transformer's loader (cogvideox/streaming_weights.h) adds page release and sharded saving,
// and the two are to become one loader in engine/core.

#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/tensor_io.h"

#include <c10/core/TensorOptions.h>
#include <torch/nn/module.h>

#include <map>
#include <string>
#include <vector>

namespace tuneframe::models {

// The type and device a model's weights and activations use.
struct WeightsPlacement {
    c10::ScalarType dtype = c10::kFloat;
    c10::Device device = c10::kCPU;

    c10::TensorOptions options() const { return c10::TensorOptions().dtype(dtype).device(device); }
};

// fp32, bf16 anywhere; fp16 only on CUDA (Debian's CPU LibTorch has no half kernels).
void check_placement(const WeightsPlacement& placement);
// "fp32"/"float32", "bf16"/"bfloat16", "fp16"/"float16"; a BadInput error names the choices.
c10::ScalarType parse_dtype(const std::string& name);
// "cpu", "cuda", "cuda:N"; an error when CUDA is asked for and absent.
c10::Device parse_device(const std::string& name);

struct WeightLoadRules {
    // A parameter that may be stored under another name (tied weights): parameter -> file key.
    std::map<std::string, std::string> aliases;
    // File keys that belong to a larger model (a T5 decoder) and are skipped.
    std::vector<std::string> ignored_prefixes;
};

// Copies every parameter and buffer of `module` from `checkpoint`, converting to the dtype and
// device each already has. Before copying anything it checks the whole key set and fails with
// one BadInput error that lists missing, unexpected and mis-shaped keys.
void load_module_weights(torch::nn::Module& module, const core::SafetensorsCheckpoint& checkpoint,
                         const WeightLoadRules& rules = {});

// Parameters and buffers under their checkpoint names, for writing a model folder.
core::NamedTensors module_tensors(const torch::nn::Module& module);

} // namespace tuneframe::models
