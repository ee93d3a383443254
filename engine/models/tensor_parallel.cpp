#include "engine/models/tensor_parallel.h"

#include <torch/nn/module.h>

#include <optional>

namespace tuneframe::models {
namespace {

// The part of `name` after the block layer `layer` it belongs to, or nullopt.
std::optional<std::string> within(const std::string& name, const std::string& blocks_prefix,
                                  const std::string& layer) {
    const std::size_t at = name.find(layer);
    if (name.rfind(blocks_prefix, 0) != 0 || at == std::string::npos) {
        return std::nullopt;
    }
    return name.substr(at + layer.size());
}

} // namespace

TensorParallelLayout block_split_layout(const torch::nn::Module& transformer,
                                        const BlockSplit& split) {
    TensorParallelLayout layout;
    for (const auto& item : transformer.named_parameters()) {
        const std::string& name = item.key();
        for (const std::string& layer : split.column) {
            if (const auto rest = within(name, split.blocks_prefix, layer)) {
                if (*rest == "lora_A.weight") {
                    layout.partial_gradients.insert(name);
                } else {
                    layout.split_dim[name] = 0; // weight, bias, lora_B.weight
                }
            }
        }
        for (const std::string& layer : split.row) {
            if (const auto rest = within(name, split.blocks_prefix, layer)) {
                if (*rest == "lora_B.weight") {
                    layout.partial_gradients.insert(name);
                } else if (*rest != "bias") {   // added once, after the sum
                    layout.split_dim[name] = 1; // weight, lora_A.weight
                }
            }
        }
        for (const std::string& norm : split.head_norms) {
            if (within(name, split.blocks_prefix, norm)) {
                if (split.head_norms_split) {
                    layout.split_dim[name] = 0;
                } else {
                    layout.partial_gradients.insert(name);
                }
            }
        }
    }
    return layout;
}

} // namespace tuneframe::models
