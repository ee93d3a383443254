#include "engine/models/cogvideox/memory_estimate.h"

namespace tuneframe::models::cogvideox {
namespace {

// Widths of [tokens, D] tensors alive at the peak of one block's forward: the two residual
// streams, a norm output, q/k/v, the attention output and the 4D-wide feed-forward hidden
// before and after GELU.
constexpr std::int64_t kForwardWidths = 14;
// Widths a block keeps for its backward (inputs of every matmul and norm, the GELU input,
// float32 rotary intermediates, the attention output).
constexpr std::int64_t kSavedWidths = 26;

} // namespace

TokenCount token_count(const CogVideoXTransformer3DConfig& config, const VideoShape& shape) {
    TokenCount count;
    const std::int64_t pt = config.patch_size_t.value_or(1);
    count.latent_frames = (shape.frames - 1) / config.temporal_compression_ratio + 1;
    count.latent_frames = (count.latent_frames + pt - 1) / pt * pt;
    const std::int64_t grid_h = shape.height / 8 / config.patch_size;
    const std::int64_t grid_w = shape.width / 8 / config.patch_size;
    count.video = count.latent_frames / pt * grid_h * grid_w;
    count.total = count.video + config.max_text_seq_length;
    return count;
}

std::uint64_t forward_activation_bytes(const CogVideoXTransformer3DConfig& config,
                                       std::int64_t dtype_bytes, std::int64_t batch,
                                       std::int64_t tokens) {
    return static_cast<std::uint64_t>(batch * tokens * config.inner_dim() * dtype_bytes *
                                      kForwardWidths);
}

std::uint64_t training_activation_bytes(const CogVideoXTransformer3DConfig& config,
                                        std::int64_t dtype_bytes, std::int64_t batch,
                                        std::int64_t tokens, bool gradient_checkpointing) {
    const std::int64_t token_bytes = batch * tokens * config.inner_dim() * dtype_bytes;
    const std::int64_t block = kSavedWidths * token_bytes; // one [B, N, D] times the widths
    // With checkpointing every block keeps only its inputs, and one block at a time is
    // recomputed with its full set.
    return static_cast<std::uint64_t>(gradient_checkpointing
                                          ? config.num_layers * token_bytes + block
                                          : config.num_layers * block);
}

MemoryEstimate estimate_inference_memory(const CogVideoXTransformer3DConfig& config,
                                         std::int64_t dtype_bytes, const VideoShape& shape) {
    MemoryEstimate estimate;
    estimate.weights = static_cast<std::uint64_t>(config.parameter_count() * dtype_bytes);
    // CFG: unconditional and conditional together
    estimate.activations = forward_activation_bytes(config, dtype_bytes, 2 * shape.batch,
                                                    token_count(config, shape).total);
    return estimate;
}

MemoryEstimate estimate_lora_training_memory(const CogVideoXTransformer3DConfig& config,
                                             std::int64_t dtype_bytes, const VideoShape& shape,
                                             std::int64_t rank, bool gradient_checkpointing) {
    MemoryEstimate estimate;
    const std::int64_t dim = config.inner_dim();
    estimate.weights = static_cast<std::uint64_t>(config.parameter_count() * dtype_bytes);
    // Four D x D projections per block, each with A [r, D] and B [D, r]; float32 weights,
    // gradients and two AdamW moments.
    const std::int64_t adapter_parameters = config.num_layers * 4 * rank * 2 * dim;
    estimate.trainable = static_cast<std::uint64_t>(adapter_parameters * 4 * 4);
    estimate.activations = training_activation_bytes(
        config, dtype_bytes, shape.batch, token_count(config, shape).total, gradient_checkpointing);
    return estimate;
}

} // namespace tuneframe::models::cogvideox
