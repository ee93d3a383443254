#include "engine/models/cogvideox/memory_estimate.h"

#include "engine/core/kernels/kept_attention.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/models/memory_bytes.h"

#include <torch/version.h>

#include <algorithm>

namespace tuneframe::models::cogvideox {
namespace {

// The constants below were fitted to measured peaks (bench/RESULTS.md, "Calibrating the
// memory estimate"): on an H100 with LibTorch 2.11, `bench` 2b and 5b at 49 x 480 x 720 (bf16,
// checkpointing) peak at 7.08 and 17.85 GiB against 7.15 and 18.27 estimated (+1%, +2%); on the
// CPU with LibTorch 1.13 (fp32, live tensor bytes), bench-cpu and the tiny model.

// LibTorch 2.x runs attention fused (flash, cuDNN or memory-efficient on CUDA, flash on the
// CPU), which never holds a [B, heads, N, N] matrix; 1.13's math path does.
constexpr bool kFusedAttention = TORCH_VERSION_MAJOR >= 2;
// Score-sized matrices alive at the peak of an unfused attention's backward: the saved
// probabilities and the gradients of probabilities and scores while softmax's backward runs.
// Fitted on bench-cpu (1276 tokens, 8 heads, fp32): its peak less the fused estimate is 2.27
// of them.
constexpr double kUnfusedBackwardMatrices = 2.3;
// ... and in a forward that keeps nothing: the scores and the probabilities.
constexpr double kUnfusedForwardMatrices = 2.0;

long double score_matrix_bytes(const CogVideoXTransformer3DConfig& config, std::int64_t dtype_bytes,
                               std::int64_t batch, std::int64_t tokens) {
    return static_cast<long double>(batch) * static_cast<long double>(config.num_attention_heads) *
           static_cast<long double>(tokens) * static_cast<long double>(tokens) *
           static_cast<long double>(dtype_bytes);
}

// One [batch, tokens, width] tensor, the unit the widths below count in.
long double token_bytes(const CogVideoXTransformer3DConfig& config, std::int64_t dtype_bytes,
                        std::int64_t batch, std::int64_t tokens) {
    return static_cast<long double>(batch) * static_cast<long double>(tokens) *
           static_cast<long double>(config.num_attention_heads) *
           static_cast<long double>(config.attention_head_dim) *
           static_cast<long double>(dtype_bytes);
}

// Widths of [tokens, D] tensors alive at the peak of one block's forward: the two residual
// streams, a norm output, q/k/v, the attention output and the 4D-wide feed-forward hidden
// before and after GELU.
constexpr std::int64_t kForwardWidths = 14;
// Widths a block keeps for its backward (inputs of every matmul and norm, the GELU input,
// float32 rotary intermediates, the attention output), and the widths of gradients and
// temporaries of the one block being back-propagated. Fitted together: with checkpointing the
// recomputed block holds both (26, which the H100 figures above confirm); without it, the CPU
// runs of bench-cpu and the tiny model give 14 per block plus 12 (bench-cpu: 26 per block had
// said 647 MiB against 546 measured).
constexpr std::int64_t kSavedWidths = 14;
constexpr std::int64_t kBackwardWorkingWidths = 12;

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
    const long double widths = token_bytes(config, dtype_bytes, batch, tokens) * kForwardWidths;
    if (kFusedAttention) {
        return memory_bytes(widths, "the activations");
    }
    return memory_bytes(widths + kUnfusedForwardMatrices *
                                     score_matrix_bytes(config, dtype_bytes, batch, tokens),
                        "the activations");
}

std::int64_t checkpointed_block_count(const CogVideoXTransformer3DConfig& config,
                                      bool gradient_checkpointing,
                                      std::optional<std::int64_t> limit) {
    if (!gradient_checkpointing) {
        return 0;
    }
    return std::clamp<std::int64_t>(limit.value_or(config.num_layers), 0, config.num_layers);
}

std::uint64_t training_activation_bytes(const CogVideoXTransformer3DConfig& config,
                                        std::int64_t dtype_bytes, std::int64_t batch,
                                        std::int64_t tokens, RecomputePlan recompute,
                                        std::int64_t sequence_parallel) {
    const long double one_width = token_bytes(config, dtype_bytes, batch, tokens);
    const std::int64_t recomputed = checkpointed_block_count(config, true, recompute.blocks);
    const std::int64_t kept = config.num_layers - recomputed;
    // A recomputed block keeps only its input until backward reaches it, the others (the last
    // ones) their full set. Backward's peak is at its start, with all of that held plus the
    // working set of the block being back-propagated; when every block is recomputed, it is the
    // last block recomputed with its full set.
    const std::int64_t working = (kept == 0 ? kSavedWidths : 0) + kBackwardWorkingWidths;
    long double widths =
        static_cast<long double>(recomputed + kept * kSavedWidths + working) * one_width;
    if (recompute.keeps_attention && core::KeptAttention::available()) {
        // The attention output (one width) and its float32 log-sum-exp per head and token.
        const long double logsumexp = static_cast<long double>(batch) *
                                      static_cast<long double>(config.num_attention_heads) *
                                      static_cast<long double>(tokens) * 4;
        widths += static_cast<long double>(recomputed) * (one_width + logsumexp);
    }
    if (kFusedAttention) {
        return memory_bytes(widths, "the training activations");
    }
    // A kept block also keeps its probabilities for backward (the one being back-propagated is
    // in kUnfusedBackwardMatrices). Split sequences attend over the whole sequence with 1/sp of
    // the heads (Ulysses), so `tokens` (this rank's) squared counts sp times.
    const long double matrices =
        kUnfusedBackwardMatrices + static_cast<long double>(std::max<std::int64_t>(kept - 1, 0));
    return memory_bytes(widths + matrices * static_cast<long double>(sequence_parallel) *
                                     score_matrix_bytes(config, dtype_bytes, batch, tokens),
                        "the training activations");
}

std::uint64_t block_input_bytes(const CogVideoXTransformer3DConfig& config,
                                std::int64_t dtype_bytes, std::int64_t batch, std::int64_t tokens) {
    return memory_bytes(token_bytes(config, dtype_bytes, batch, tokens), "a block's input");
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
                                             std::int64_t rank, RecomputePlan recompute,
                                             lora::BaseQuantization quantization) {
    MemoryEstimate estimate;
    const std::int64_t dim = config.inner_dim();
    estimate.weights =
        static_cast<std::uint64_t>(config.parameter_count() * dtype_bytes -
                                   quantized_base_saving_bytes(config, dtype_bytes, quantization));
    // Four D x D projections per block, each with A [r, D] and B [D, r]; float32 weights,
    // gradients and two AdamW moments.
    const std::int64_t adapter_parameters = config.num_layers * 4 * rank * 2 * dim;
    estimate.trainable = static_cast<std::uint64_t>(adapter_parameters * 4 * 4);
    estimate.activations = training_activation_bytes(config, dtype_bytes, shape.batch,
                                                     token_count(config, shape).total, recompute);
    return estimate;
}

} // namespace tuneframe::models::cogvideox
