#pragma once

#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_linear.h"
#include "engine/models/tensor_parallel.h"
#include "engine/models/token_exchange.h"
#include "engine/models/wan/embeddings.h"
#include "engine/models/wan/normalization.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>
#include <optional>

namespace tuneframe::models::wan {

// diffusers hardcodes the text encoder's context length: an I2V cross-attention takes
// [image tokens; text] and splits the image tokens off as everything before the last 512.
constexpr std::int64_t kTextContextLength = 512;

// WanAttention running WanAttnProcessor: q/k/v projections, RMSNorm across all heads on q and
// k, rotary on q and k (self-attention), scaled-dot-product attention, the output projection.
// With added_kv_proj_dim (Wan 2.1 I2V), cross-attention also attends to the image tokens in
// front of the text through add_k_proj / add_v_proj / norm_added_k and adds the two outputs.
class WanAttentionImpl : public torch::nn::Module {
public:
    WanAttentionImpl(std::int64_t dim, std::int64_t heads, std::int64_t dim_head, double eps,
                     std::optional<std::int64_t> added_kv_proj_dim = std::nullopt);

    // hidden_states [B, N, D] -> [B, N, D]. Self-attention: encoder_hidden_states undefined and
    // `rotary` the tables of these tokens. Cross-attention: encoder_hidden_states [B, L, D]
    // (I2V: [B, image tokens + 512, D]) and no rotary. With `split` (self-attention only), the
    // tokens are this rank's run: q, k and v are exchanged for the whole sequence over a share of
    // the heads and the output exchanged back. With `kept` (a checkpointed block's), attention
    // goes through it.
    at::Tensor forward(const at::Tensor& hidden_states, const at::Tensor& encoder_hidden_states,
                       const RotaryTables* rotary = nullptr, const SequenceSplit* split = nullptr,
                       core::KeptAttention* kept = nullptr);

    // Keeps this rank's share of the heads (q, k, v and the added K/V split by output, their
    // norms with them, the output projection by input) and exchanges through `parallel` from
    // then on. After any LoRA adapters.
    void split_heads_over(const std::shared_ptr<TensorParallel>& parallel);

    lora::LoRALinear to_q{nullptr};
    lora::LoRALinear to_k{nullptr};
    lora::LoRALinear to_v{nullptr};
    torch::nn::ModuleList to_out{nullptr}; // [0] Linear, [1] Dropout (no parameters)
    RMSNorm norm_q{nullptr};
    RMSNorm norm_k{nullptr};
    lora::LoRALinear add_k_proj{nullptr}; // I2V only, with the two below
    lora::LoRALinear add_v_proj{nullptr};
    RMSNorm norm_added_k{nullptr};

private:
    at::Tensor split_heads(const at::Tensor& x) const; // [B, N, h*d] -> [B, N, h, d]
    at::Tensor project_out(const at::Tensor& x);

    std::int64_t heads_; // this rank's, under tensor parallelism
    std::int64_t dim_head_;
    std::shared_ptr<TensorParallel> parallel_;
    lora::LoRALinear to_out_proj_{nullptr};
    torch::nn::Dropout to_out_dropout_{nullptr};
};
TORCH_MODULE(WanAttention);

} // namespace tuneframe::models::wan
