#include "engine/models/wan/tensor_parallel.h"

#include <torch/nn/module.h>

#include <array>
#include <optional>

namespace tuneframe::models::wan {
namespace {

// Column-split layers (output features split) and row-split ones (input features split), by
// their module path inside a block.
constexpr std::array<const char*, 9> kColumnSplit = {
    ".attn1.to_q.", ".attn1.to_k.",       ".attn1.to_v.",       ".attn2.to_q.",    ".attn2.to_k.",
    ".attn2.to_v.", ".attn2.add_k_proj.", ".attn2.add_v_proj.", ".ffn.net.0.proj."};
constexpr std::array<const char*, 3> kRowSplit = {".attn1.to_out.0.", ".attn2.to_out.0.",
                                                  ".ffn.net.2."};
constexpr std::array<const char*, 5> kHeadNorms = {
    ".attn1.norm_q.", ".attn1.norm_k.", ".attn2.norm_q.", ".attn2.norm_k.", ".attn2.norm_added_k."};

// The part of `name` after the layer `layer` it belongs to, or nullopt.
std::optional<std::string> within(const std::string& name, const char* layer) {
    const std::size_t at = name.find(layer);
    if (name.rfind("blocks.", 0) != 0 || at == std::string::npos) {
        return std::nullopt;
    }
    return name.substr(at + std::string(layer).size());
}

} // namespace

TensorParallelLayout tensor_parallel_layout(const torch::nn::Module& transformer) {
    TensorParallelLayout layout;
    for (const auto& item : transformer.named_parameters()) {
        const std::string& name = item.key();
        for (const char* layer : kColumnSplit) {
            if (const auto rest = within(name, layer)) {
                if (*rest == "lora_A.weight") {
                    layout.partial_gradients.insert(name);
                } else {
                    layout.split_dim[name] = 0; // weight, bias, lora_B.weight
                }
            }
        }
        for (const char* layer : kRowSplit) {
            if (const auto rest = within(name, layer)) {
                if (*rest == "lora_B.weight") {
                    layout.partial_gradients.insert(name);
                } else if (*rest != "bias") {   // added once, after the sum
                    layout.split_dim[name] = 1; // weight, lora_A.weight
                }
            }
        }
        for (const char* norm : kHeadNorms) {
            if (within(name, norm)) {
                layout.split_dim[name] = 0;
            }
        }
    }
    return layout;
}

} // namespace tuneframe::models::wan
