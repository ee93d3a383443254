#pragma once

#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/transformer_memory.h"

namespace tuneframe::models::cogvideox {

// The CogVideoX transformer's memory arithmetic (memory_estimate.h) behind the engine's
// interface.
class CogVideoXTransformerMemory : public TransformerMemory {
public:
    explicit CogVideoXTransformerMemory(CogVideoXTransformer3DConfig config)
        : config_(std::move(config)) {}

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
    CogVideoXTransformer3DConfig config_;
};

} // namespace tuneframe::models::cogvideox
