#pragma once

#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/cogvideox/embeddings.h"
#include "engine/models/cogvideox/tensor_parallel.h"
#include "engine/models/token_exchange.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <optional>

namespace tuneframe::models::cogvideox {

// diffusers' Attention as CogVideoX builds it (qk_norm "layer_norm", eps 1e-6, biased q/k/v),
// running CogVideoXAttnProcessor2_0: joint self-attention over [text; video] tokens, q/k
// LayerNorm over head_dim, rotary on the video tokens only, scaled-dot-product attention. q, k
// and v share their input, so their LoRA adapters run as one (LoRALinearImpl::forward_group).
class AttentionImpl : public torch::nn::Module {
public:
    AttentionImpl(std::int64_t query_dim, std::int64_t heads, std::int64_t dim_head, bool bias,
                  double dropout);

    // tokens [B, L+N, D], the first `text_length` rows text, the rest video -> the attention's
    // output of the same shape. q and k are normalised over the head dim in the projections'
    // layout and rotated (video rows) in one pass (core::head_norm_rotary). With `split`, the
    // tokens are this rank's runs of text and video and `rotary` holds the rows of its video
    // tokens; q, k and v are exchanged for the whole sequence over a share of the heads, and the
    // output exchanged back. With `kept` (a checkpointed block's), attention goes through it:
    // computed and kept in the first forward, handed back in the recomputation.
    at::Tensor forward(const at::Tensor& tokens, std::int64_t text_length,
                       const std::optional<RotaryEmbedding>& rotary,
                       const SequenceSplit* split = nullptr, core::KeptAttention* kept = nullptr);

    // Keeps this rank's share of the heads (q, k and v split by output, the output projection
    // by input) and exchanges through `parallel` from then on. After any LoRA adapters.
    void split_heads_over(std::shared_ptr<TensorParallel> parallel);

    lora::LoRALinear to_q{nullptr};
    lora::LoRALinear to_k{nullptr};
    lora::LoRALinear to_v{nullptr};
    torch::nn::LayerNorm norm_q{nullptr};
    torch::nn::LayerNorm norm_k{nullptr};
    torch::nn::ModuleList to_out{nullptr}; // [0] Linear, [1] Dropout (no parameters)

private:
    at::Tensor split_heads(const at::Tensor& x) const; // [B, N, D] -> [B, heads, N, head_dim]

    std::int64_t heads_; // this rank's, under tensor parallelism
    std::int64_t dim_head_;
    std::shared_ptr<TensorParallel> parallel_;
    lora::LoRALinear to_out_proj_{nullptr};
    torch::nn::Dropout to_out_dropout_{nullptr};
};
TORCH_MODULE(Attention);

} // namespace tuneframe::models::cogvideox
