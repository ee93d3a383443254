#pragma once

#include "engine/models/transformer_memory.h"

#include "engine/lora/quantized_weight.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <cstdint>
#include <optional>

// Back-of-envelope memory figures for `inspect` (transformer only; excludes the CUDA context,
// allocator fragmentation, the VAE and the text encoder). The per-token constants count the
// tensors alive in one block; bench/ measures the real numbers.
namespace tuneframe::models::cogvideox {

using models::VideoShape;

struct TokenCount {
    std::int64_t latent_frames = 0; // after the 1.5 pipelines' padding to the temporal patch
    std::int64_t video = 0;
    std::int64_t total = 0; // video + max_text_seq_length
};
TokenCount token_count(const CogVideoXTransformer3DConfig& config, const VideoShape& shape);

struct MemoryEstimate {
    std::uint64_t weights = 0;
    std::uint64_t trainable = 0; // adapter parameters, gradients and AdamW moments (float32)
    std::uint64_t activations = 0;
    std::uint64_t total() const { return weights + trainable + activations; }
};

// Activations of one block-by-block forward that keeps nothing for backward, for `batch`
// sequences of `tokens` tokens each.
std::uint64_t forward_activation_bytes(const CogVideoXTransformer3DConfig& config,
                                       std::int64_t dtype_bytes, std::int64_t batch,
                                       std::int64_t tokens);
// How many blocks a training step recomputes in backward: none without checkpointing, else the
// first `limit` (all when unset; a limit past the model's depth means all, so one preset serves
// 2b's 30 blocks and 5b's 42).
std::int64_t checkpointed_block_count(const CogVideoXTransformer3DConfig& config,
                                      bool gradient_checkpointing,
                                      std::optional<std::int64_t> limit = std::nullopt);

using models::RecomputePlan;

// Activations a training step keeps for backward: a checkpointed block keeps only its inputs
// (and, keeping attention, its attention output and log-sum-exp) and is recomputed when
// backward reaches it, the others keep everything. `tokens` per sequence on this process,
// which holds 1/sequence_parallel of each sequence.
std::uint64_t training_activation_bytes(const CogVideoXTransformer3DConfig& config,
                                        std::int64_t dtype_bytes, std::int64_t batch,
                                        std::int64_t tokens, RecomputePlan recompute,
                                        std::int64_t sequence_parallel = 1);

// One block's input (video and text tokens, one width): what a recomputed block keeps.
std::uint64_t block_input_bytes(const CogVideoXTransformer3DConfig& config,
                                std::int64_t dtype_bytes, std::int64_t batch, std::int64_t tokens);

// One denoising forward with classifier-free guidance (batch doubled), fused attention.
MemoryEstimate estimate_inference_memory(const CogVideoXTransformer3DConfig& config,
                                         std::int64_t dtype_bytes, const VideoShape& shape);

// A LoRA training step on q/k/v/out of every block (rank `rank`), AdamW, recomputing as
// `recompute` says, fused attention; the frozen base in `dtype_bytes` or quantized
// (quantized_base.h).
MemoryEstimate
estimate_lora_training_memory(const CogVideoXTransformer3DConfig& config, std::int64_t dtype_bytes,
                              const VideoShape& shape, std::int64_t rank, RecomputePlan recompute,
                              lora::BaseQuantization quantization = lora::BaseQuantization::None);

} // namespace tuneframe::models::cogvideox
