#pragma once

#include "engine/lora/lora_linear.h"

#include <torch/nn/module.h>

#include <string>
#include <utility>
#include <vector>

// PEFT-style injection by module-name patterns, and whole-model adapter operations.
namespace tuneframe::lora {

struct LoRAConfig {
    std::int64_t rank = 16;
    double alpha = 16;
    double dropout = 0;
    LoRAInit init = LoRAInit::Kaiming;
    // PEFT semantics: a module matches when its name equals a target or ends with
    // "." + target. The default is what the CogVideoX trainers adapt.
    std::vector<std::string> target_modules = {"to_q", "to_k", "to_v", "to_out.0"};
};

bool matches_target(const std::string& module_name, const std::string& target);
// A parameter name that belongs to an adapter ("…to_q.lora_A.weight"), not to the base model.
bool is_adapter_tensor(const std::string& tensor_name);

using NamedLoRALinear = std::pair<std::string, LoRALinear>;
std::vector<NamedLoRALinear> linear_layers(torch::nn::Module& model);  // every LoRALinear
std::vector<NamedLoRALinear> adapted_layers(torch::nn::Module& model); // those with an adapter

// Adds an adapter to every Linear a target matches; returns their names. A target matching no
// module, or naming a module that is not a Linear, is an error (never a silent skip).
std::vector<std::string> inject_lora(torch::nn::Module& model, const LoRAConfig& config);

// diffusers' set_adapters weight for every adapter: scaling = weight * alpha / rank.
void set_lora_weight(torch::nn::Module& model, double weight);
void merge_lora(torch::nn::Module& model);
void unmerge_lora(torch::nn::Module& model);
void remove_lora(torch::nn::Module& model);

// The adapters' tensors (what the optimizer trains), in name order.
std::vector<at::Tensor> lora_parameters(torch::nn::Module& model);
// LoRA training: base parameters frozen, adapters trainable.
void freeze_all_but_lora(torch::nn::Module& model);

} // namespace tuneframe::lora
