#pragma once

#include "engine/lora/quantized_weight.h"
#include "engine/models/transformer_memory.h"

#include <cstdint>
#include <string>
#include <vector>

// A transformer's memory at one step, composed from any family's TransformerMemory: what
// `inspect` prints and what `bench` compares with the peak it measures (transformer only; no
// CUDA context, allocator slack, VAE or text encoder).
namespace tuneframe::models {

struct TransformerMemoryEstimate {
    std::uint64_t weights = 0;
    std::uint64_t trainable = 0; // adapter parameters, gradients and AdamW moments (float32)
    std::uint64_t activations = 0;
    std::uint64_t total() const { return weights + trainable + activations; }
};

// One denoising forward with classifier-free guidance (the batch doubled) of a model of
// `parameters` held in `dtype_bytes`.
TransformerMemoryEstimate estimate_inference(const TransformerMemory& memory,
                                             std::int64_t parameters, std::int64_t dtype_bytes,
                                             const VideoShape& shape);

// A LoRA training step: rank-`rank` adapters on `targets`, AdamW, recomputing as `recompute`
// says, the frozen base in `dtype_bytes` or quantized.
TransformerMemoryEstimate estimate_lora_training(
    const TransformerMemory& memory, std::int64_t parameters, std::int64_t dtype_bytes,
    const VideoShape& shape, const std::vector<std::string>& targets, std::int64_t rank,
    RecomputePlan recompute, lora::BaseQuantization quantization = lora::BaseQuantization::None);

} // namespace tuneframe::models
