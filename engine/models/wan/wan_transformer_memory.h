#pragma once

#include "engine/models/model_folder.h"
#include "engine/models/transformer_memory.h"
#include "engine/models/wan/transformer_wan_config.h"

namespace tuneframe::models::wan {

// The Wan transformer's memory arithmetic, from its config: the video tokens of a shape (the
// text and image tokens only enter cross-attention's keys and values), the widths a block keeps
// (its feed-forward is ffn_dim wide), the layers tensor parallelism splits and a quantized base
// stores.
class WanTransformerMemory : public TransformerMemory {
public:
    WanTransformerMemory(WanTransformer3DConfig config, LatentGeometry geometry,
                         std::int64_t context_tokens);

    std::int64_t num_blocks() const override { return config_.num_layers; }
    std::int64_t tokens(const VideoShape& shape) const override;
    std::uint64_t forward_activation_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                           std::int64_t tokens) const override;
    std::uint64_t training_activation_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                            std::int64_t tokens, RecomputePlan recompute,
                                            std::int64_t sequence_parallel) const override;
    std::uint64_t block_input_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                    std::int64_t tokens) const override;
    std::int64_t tensor_parallel_weights() const override;
    std::int64_t quantized_base_saving_bytes(std::int64_t dtype_bytes,
                                             lora::BaseQuantization quantization) const override;
    std::int64_t adapter_parameters(const std::vector<std::string>& targets,
                                    std::int64_t rank) const override;
    std::optional<std::int64_t> narrowest_target_width(const std::string& target) const override;

private:
    // The Linear layers of one block: module path within the block, in and out features.
    struct BlockLinear {
        std::string name;
        std::int64_t in;
        std::int64_t out;
    };
    std::vector<BlockLinear> block_linears() const;
    long double feed_forward_widths() const; // ffn_dim / width
    // One [batch, tokens, width] tensor, the unit the widths above count in.
    long double token_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                            std::int64_t tokens) const;

    WanTransformer3DConfig config_;
    LatentGeometry geometry_;
    std::int64_t context_tokens_; // text (and image) tokens
};

} // namespace tuneframe::models::wan
