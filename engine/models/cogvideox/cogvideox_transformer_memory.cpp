#include "engine/models/cogvideox/cogvideox_transformer_memory.h"

#include "engine/lora/lora_rank_check.h"
#include "engine/models/cogvideox/memory_estimate.h"
#include "engine/models/cogvideox/quantized_base.h"

#include <algorithm>

namespace tuneframe::models::cogvideox {

std::int64_t CogVideoXTransformerMemory::tokens(const VideoShape& shape) const {
    return token_count(config_, shape).total;
}

std::uint64_t CogVideoXTransformerMemory::forward_activation_bytes(std::int64_t dtype_bytes,
                                                                   std::int64_t batch,
                                                                   std::int64_t tokens) const {
    return cogvideox::forward_activation_bytes(config_, dtype_bytes, batch, tokens);
}

std::uint64_t
CogVideoXTransformerMemory::training_activation_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                                      std::int64_t tokens, RecomputePlan recompute,
                                                      std::int64_t sequence_parallel) const {
    return cogvideox::training_activation_bytes(config_, dtype_bytes, batch, tokens, recompute,
                                                sequence_parallel);
}

std::uint64_t CogVideoXTransformerMemory::block_input_bytes(std::int64_t dtype_bytes,
                                                            std::int64_t batch,
                                                            std::int64_t tokens) const {
    return cogvideox::block_input_bytes(config_, dtype_bytes, batch, tokens);
}

std::int64_t CogVideoXTransformerMemory::tensor_parallel_weights() const {
    // Each block's four attention projections (D x D) and feed-forward (D x 4D, 4D x D).
    return config_.num_layers * 12 * config_.inner_dim() * config_.inner_dim();
}

std::int64_t
CogVideoXTransformerMemory::quantized_base_saving_bytes(std::int64_t dtype_bytes,
                                                        lora::BaseQuantization quantization) const {
    return cogvideox::quantized_base_saving_bytes(config_, dtype_bytes, quantization);
}

std::int64_t CogVideoXTransformerMemory::adapter_parameters(const std::vector<std::string>& targets,
                                                            std::int64_t rank) const {
    // Every target taken as a D x D layer: exact for the attention projections CogVideoX
    // trainers adapt, a lower bound for the feed-forward.
    const std::int64_t width = config_.inner_dim();
    return config_.num_layers * static_cast<std::int64_t>(targets.size()) * std::min(rank, width) *
           2 * width;
}

std::optional<std::int64_t>
CogVideoXTransformerMemory::narrowest_target_width(const std::string& target) const {
    return lora::narrowest_target_width(target, config_);
}

} // namespace tuneframe::models::cogvideox
