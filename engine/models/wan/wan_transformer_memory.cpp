#include "engine/models/wan/wan_transformer_memory.h"

#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_injection.h"

#include <algorithm>

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

double WanTransformerMemory::feed_forward_widths() const {
    return static_cast<double>(config_.ffn_dim) / static_cast<double>(config_.inner_dim());
}

std::int64_t WanTransformerMemory::tokens(const VideoShape& shape) const {
    const std::int64_t latent_frames = (shape.frames - 1) / geometry_.temporal_scale + 1;
    const std::int64_t side = geometry_.spatial_scale * geometry_.patch_size;
    return latent_frames / geometry_.patch_frames * (shape.height / side) * (shape.width / side) +
           context_tokens_;
}

std::uint64_t WanTransformerMemory::forward_activation_bytes(std::int64_t dtype_bytes,
                                                             std::int64_t batch,
                                                             std::int64_t tokens) const {
    const double widths = kForwardWidths + 2 * feed_forward_widths();
    return static_cast<std::uint64_t>(widths * static_cast<double>(batch * tokens *
                                                                   config_.inner_dim() *
                                                                   dtype_bytes));
}

std::uint64_t WanTransformerMemory::training_activation_bytes(std::int64_t dtype_bytes,
                                                              std::int64_t batch,
                                                              std::int64_t tokens,
                                                              RecomputePlan recompute,
                                                              std::int64_t) const {
    const double token_bytes =
        static_cast<double>(batch * tokens * config_.inner_dim() * dtype_bytes);
    const std::int64_t recomputed = std::clamp<std::int64_t>(recompute.blocks, 0, num_blocks());
    const std::int64_t kept = num_blocks() - recomputed;
    const double saved = kSavedWidths + 2 * feed_forward_widths();
    // As CogVideoX's: recomputed blocks keep their input, the others their full set, and
    // backward's peak adds the working set of the block it is on.
    const double working = (kept == 0 ? saved : 0) + kBackwardWorkingWidths;
    double widths = static_cast<double>(recomputed) + static_cast<double>(kept) * saved + working;
    if (recompute.keeps_attention && core::KeptAttention::available()) {
        widths += static_cast<double>(recomputed); // the self-attention outputs
    }
    return static_cast<std::uint64_t>(widths * token_bytes);
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
    std::int64_t weights = 0;
    for (const BlockLinear& linear : block_linears()) {
        weights += linear.in * linear.out;
    }
    return num_blocks() * weights;
}

std::int64_t
WanTransformerMemory::quantized_base_saving_bytes(std::int64_t dtype_bytes,
                                                  lora::BaseQuantization quantization) const {
    if (quantization == lora::BaseQuantization::None) {
        return 0;
    }
    // Every Linear inside the blocks: one byte per weight plus a float32 scale per row.
    std::int64_t weights = 0;
    std::int64_t rows = 0;
    for (const BlockLinear& linear : block_linears()) {
        weights += linear.in * linear.out;
        rows += linear.out;
    }
    return num_blocks() * (weights * (dtype_bytes - 1) - rows * 4);
}

std::int64_t WanTransformerMemory::adapter_parameters(const std::vector<std::string>& targets,
                                                      std::int64_t rank) const {
    std::int64_t parameters = 0;
    for (const BlockLinear& linear : block_linears()) {
        const std::string module = "blocks.0." + linear.name;
        const bool targeted = std::any_of(targets.begin(), targets.end(), [&](const auto& t) {
            return lora::matches_target(module, t);
        });
        if (targeted) {
            const std::int64_t r = std::min({rank, linear.in, linear.out});
            parameters += r * (linear.in + linear.out);
        }
    }
    return num_blocks() * parameters;
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
