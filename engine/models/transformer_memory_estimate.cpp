#include "engine/models/transformer_memory_estimate.h"

namespace tuneframe::models {
namespace {

// Float32 adapter weights, their gradients and AdamW's two moments.
constexpr std::int64_t kTrainableBytesPerParameter = 4 * 4;

} // namespace

TransformerMemoryEstimate estimate_inference(const TransformerMemory& memory,
                                             std::int64_t parameters, std::int64_t dtype_bytes,
                                             const VideoShape& shape) {
    TransformerMemoryEstimate estimate;
    estimate.weights = static_cast<std::uint64_t>(parameters * dtype_bytes);
    estimate.activations =
        memory.forward_activation_bytes(dtype_bytes, 2 * shape.batch, memory.tokens(shape));
    return estimate;
}

TransformerMemoryEstimate estimate_lora_training(const TransformerMemory& memory,
                                                 std::int64_t parameters, std::int64_t dtype_bytes,
                                                 const VideoShape& shape,
                                                 const std::vector<std::string>& targets,
                                                 std::int64_t rank, RecomputePlan recompute,
                                                 lora::BaseQuantization quantization) {
    TransformerMemoryEstimate estimate;
    estimate.weights = static_cast<std::uint64_t>(
        parameters * dtype_bytes - memory.quantized_base_saving_bytes(dtype_bytes, quantization));
    estimate.trainable = static_cast<std::uint64_t>(memory.adapter_parameters(targets, rank) *
                                                    kTrainableBytesPerParameter);
    estimate.activations = memory.training_activation_bytes(dtype_bytes, shape.batch,
                                                            memory.tokens(shape), recompute, 1);
    return estimate;
}

} // namespace tuneframe::models
