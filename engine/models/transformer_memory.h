#pragma once

#include "engine/lora/quantized_weight.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// A family's transformer memory arithmetic, from its config alone (nothing is loaded), for
// `inspect`, `estimate` and the studio's pre-flight check. The per-token constants count the
// tensors alive in one block; bench/ measures the real numbers.
namespace tuneframe::models {

struct VideoShape {
    std::int64_t frames = 49; // pixel frames
    std::int64_t height = 480;
    std::int64_t width = 720;
    std::int64_t batch = 1;
};

// What a training step recomputes in backward: the first `blocks` blocks, and whether they
// keep their attention outputs (core::KeptAttention) so the recomputation skips attention. A
// struct, so a stray `true` cannot mean one block.
struct RecomputePlan {
    std::int64_t blocks = 0;
    bool keeps_attention = false;
};

class TransformerMemory {
public:
    virtual ~TransformerMemory() = default;

    virtual std::int64_t num_blocks() const = 0;
    // Tokens per sequence for a video of `shape` (pixels): video patches plus text.
    virtual std::int64_t tokens(const VideoShape& shape) const = 0;
    // Activations of one block-by-block forward that keeps nothing for backward, for `batch`
    // sequences of `tokens` tokens each.
    virtual std::uint64_t forward_activation_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                                   std::int64_t tokens) const = 0;
    // Activations a training step keeps for backward: a checkpointed block keeps only its inputs
    // (and, keeping attention, its attention output) and is recomputed, the others keep
    // everything. `tokens` per sequence on this process, which holds 1/sequence_parallel of each.
    virtual std::uint64_t training_activation_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                                    std::int64_t tokens, RecomputePlan recompute,
                                                    std::int64_t sequence_parallel) const = 0;
    // One block's input for `batch` sequences of `tokens` tokens: what a recomputed block keeps
    // between forward and backward (training_activation_bytes counts one per recomputed block),
    // and what memory.offload_activations moves to host memory.
    virtual std::uint64_t block_input_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                            std::int64_t tokens) const = 0;
    // Weight elements tensor parallelism splits over its ranks (the blocks' attention
    // projections and feed-forward layers).
    virtual std::int64_t tensor_parallel_weights() const = 0;
    // Bytes a quantized base saves on weights held in `dtype_bytes`: its layers take one byte
    // per element plus a float32 scale per output channel. 0 for None.
    virtual std::int64_t quantized_base_saving_bytes(std::int64_t dtype_bytes,
                                                     lora::BaseQuantization quantization) const = 0;
    // Parameters of rank-`rank` adapters on every layer `targets` name (PEFT patterns), each
    // layer's rank clamped to its narrower side as injection clamps it.
    virtual std::int64_t adapter_parameters(const std::vector<std::string>& targets,
                                            std::int64_t rank) const = 0;
    // The narrower side of the Linear layers `target` names, or nullopt for a name that matches
    // none of the blocks' layers.
    virtual std::optional<std::int64_t> narrowest_target_width(const std::string& target) const = 0;

    // How many blocks a step recomputes: none without checkpointing, else the first `limit`
    // (all when unset; a limit past the depth means all, so one preset serves every size).
    std::int64_t checkpointed_blocks(bool gradient_checkpointing,
                                     std::optional<std::int64_t> limit = std::nullopt) const;
};

} // namespace tuneframe::models
