#include "engine/models/wan/wan_transformer_memory.h"

#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/memory_bytes.h"

#include <algorithm>
#include <cmath>

namespace tuneframe::models::wan {
namespace {

// Widths of [tokens, D] tensors alive at the peak of one block's forward besides the
// feed-forward's hidden (counted from ffn_dim): the residual stream, a norm output, q/k/v, the
// attention output, the cross-attention's query and output.
constexpr double kForwardWidths = 9;
// Widths a block keeps for its backward besides twice the feed-forward hidden (before and after
// GELU): the inputs of every matmul and norm, the modulated norms in float32 (counted twice),
// the rotated q and k, both attentions' outputs. As CogVideoX's constants, an upper bound that
// bench/ measures.
constexpr double kSavedWidths = 16;
constexpr double kBackwardWorkingWidths = 12;

} // namespace

WanTransformerMemory::WanTransformerMemory(WanTransformer3DConfig config, LatentGeometry geometry,
                                           std::int64_t context_tokens)
    : config_(std::move(config))
    , geometry_(geometry)
    , context_tokens_(context_tokens) {}

long double WanTransformerMemory::feed_forward_widths() const {
    return static_cast<long double>(config_.ffn_dim) /
           (static_cast<long double>(config_.num_attention_heads) *
            static_cast<long double>(config_.attention_head_dim));
}

std::int64_t WanTransformerMemory::tokens(const VideoShape& shape) const {
    const std::int64_t latent_frames = (shape.frames - 1) / geometry_.temporal_scale + 1;
    const long double side = static_cast<long double>(geometry_.spatial_scale) *
                             static_cast<long double>(geometry_.patch_size);
    const long double across = std::floor(static_cast<long double>(shape.height) / side) *
                               std::floor(static_cast<long double>(shape.width) / side);
    return memory_count(static_cast<long double>(latent_frames / geometry_.patch_frames) * across +
                            static_cast<long double>(context_tokens_),
                        "the tokens of a sequence");
}

long double WanTransformerMemory::token_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                              std::int64_t tokens) const {
    return static_cast<long double>(batch) * static_cast<long double>(tokens) *
           static_cast<long double>(config_.num_attention_heads) *
           static_cast<long double>(config_.attention_head_dim) *
           static_cast<long double>(dtype_bytes);
}

std::uint64_t WanTransformerMemory::block_input_bytes(std::int64_t dtype_bytes, std::int64_t batch,
                                                      std::int64_t tokens) const {
    return memory_bytes(token_bytes(dtype_bytes, batch, tokens), "a block's input");
}

std::uint64_t WanTransformerMemory::forward_activation_bytes(std::int64_t dtype_bytes,
                                                             std::int64_t batch,
                                                             std::int64_t tokens) const {
    const long double widths = kForwardWidths + 2 * feed_forward_widths();
    return memory_bytes(widths * token_bytes(dtype_bytes, batch, tokens), "the activations");
}

std::uint64_t WanTransformerMemory::training_activation_bytes(std::int64_t dtype_bytes,
                                                              std::int64_t batch,
                                                              std::int64_t tokens,
                                                              RecomputePlan recompute,
                                                              std::int64_t) const {
    const std::int64_t recomputed = std::clamp<std::int64_t>(recompute.blocks, 0, num_blocks());
    const std::int64_t kept = num_blocks() - recomputed;
    const long double saved = kSavedWidths + 2 * feed_forward_widths();
    // As CogVideoX's: recomputed blocks keep their input, the others their full set, and
    // backward's peak adds the working set of the block it is on.
    const long double working = (kept == 0 ? saved : 0) + kBackwardWorkingWidths;
    long double widths =
        static_cast<long double>(recomputed) + static_cast<long double>(kept) * saved + working;
    if (recompute.keeps_attention && core::KeptAttention::available()) {
        widths += static_cast<long double>(recomputed); // the self-attention outputs
    }
    return memory_bytes(widths * token_bytes(dtype_bytes, batch, tokens),
                        "the training activations");
}

std::vector<WanTransformerMemory::BlockLinear> WanTransformerMemory::block_linears() const {
    const std::int64_t d = config_.inner_dim();
    std::vector<BlockLinear> linears;
    for (const char* attention : {"attn1", "attn2"}) {
        for (const char* projection : {"to_q", "to_k", "to_v", "to_out.0"}) {
            linears.push_back({std::string(attention) + "." + projection, d, d});
        }
    }
    if (config_.added_kv_proj_dim) {
        linears.push_back({"attn2.add_k_proj", *config_.added_kv_proj_dim, d});
        linears.push_back({"attn2.add_v_proj", *config_.added_kv_proj_dim, d});
    }
    linears.push_back({"ffn.net.0.proj", d, config_.ffn_dim});
    linears.push_back({"ffn.net.2", config_.ffn_dim, d});
    return linears;
}

std::int64_t WanTransformerMemory::tensor_parallel_weights() const {
    long double weights = 0;
    for (const BlockLinear& linear : block_linears()) {
        weights += static_cast<long double>(linear.in) * static_cast<long double>(linear.out);
    }
    return memory_count(static_cast<long double>(num_blocks()) * weights, "the blocks' weights");
}

std::int64_t
WanTransformerMemory::quantized_base_saving_bytes(std::int64_t dtype_bytes,
                                                  lora::BaseQuantization quantization) const {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    // Every Linear inside the blocks: one byte per weight plus a float32 scale per row.
    long double weights = 0;
    long double rows = 0;
    for (const BlockLinear& linear : block_linears()) {
        weights += static_cast<long double>(linear.in) * static_cast<long double>(linear.out);
        rows += static_cast<long double>(linear.out);
    }
    return memory_count(static_cast<long double>(num_blocks()) *
                            (weights * static_cast<long double>(dtype_bytes - 1) - rows * 4),
                        "what a quantized base saves");
}

std::int64_t WanTransformerMemory::adapter_parameters(const std::vector<std::string>& targets,
                                                      std::int64_t rank) const {
    long double parameters = 0;
    for (const BlockLinear& linear : block_linears()) {
        const std::string module = "blocks.0." + linear.name;
        const bool targeted = std::any_of(targets.begin(), targets.end(), [&](const auto& t) {
            return lora::matches_target(module, t);
        });
        if (targeted) {
            const std::int64_t r = std::min({rank, linear.in, linear.out});
            parameters += static_cast<long double>(r) * (static_cast<long double>(linear.in) +
                                                         static_cast<long double>(linear.out));
        }
    }
    return memory_count(static_cast<long double>(num_blocks()) * parameters,
                        "the adapters' parameters");
}

std::optional<std::int64_t>
WanTransformerMemory::narrowest_target_width(const std::string& target) const {
    std::optional<std::int64_t> narrowest;
    for (const BlockLinear& linear : block_linears()) {
        if (lora::matches_target("blocks.0." + linear.name, target)) {
            const std::int64_t width = std::min(linear.in, linear.out);
            narrowest = narrowest ? std::min(*narrowest, width) : width;
        }
    }
    return narrowest;
}

} // namespace tuneframe::models::wan
