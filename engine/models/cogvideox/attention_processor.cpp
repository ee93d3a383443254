#include "engine/models/cogvideox/attention_processor.h"

#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/head_norm_rotary.h"

#include <torch/torch.h>

#include <vector>

namespace tuneframe::models::cogvideox {
namespace {

// q or k [B, L+N, heads * d] -> normalised over d, rotated on the video rows: [B, heads, L+N, d]
at::Tensor norm_and_rotate(const at::Tensor& projected, std::int64_t heads,
                           const torch::nn::LayerNorm& norm, std::int64_t text_length,
                           const std::optional<RotaryEmbedding>& rotary) {
    core::HeadNormRotaryArgs args;
    args.x = projected;
    args.heads = heads;
    args.weight = norm->weight;
    args.bias = norm->bias;
    args.eps = norm->options.eps();
    if (rotary) {
        args.cos = rotary->cos;
        args.sin = rotary->sin;
    }
    args.text_rows = text_length;
    return core::head_norm_rotary(args);
}

} // namespace

AttentionImpl::AttentionImpl(std::int64_t query_dim, std::int64_t heads, std::int64_t dim_head,
                             bool bias, double dropout)
    : heads_(heads)
    , dim_head_(dim_head) {
    const std::int64_t inner_dim = heads * dim_head;
    to_q = register_module("to_q", lora::LoRALinear(query_dim, inner_dim, bias));
    to_k = register_module("to_k", lora::LoRALinear(query_dim, inner_dim, bias));
    to_v = register_module("to_v", lora::LoRALinear(query_dim, inner_dim, bias));
    const auto norm_options = torch::nn::LayerNormOptions({dim_head}).eps(1e-6);
    norm_q = register_module("norm_q", torch::nn::LayerNorm(norm_options));
    norm_k = register_module("norm_k", torch::nn::LayerNorm(norm_options));
    to_out_proj_ = lora::LoRALinear(inner_dim, query_dim, /*bias=*/true);
    to_out_dropout_ = torch::nn::Dropout(dropout);
    to_out = register_module("to_out", torch::nn::ModuleList(to_out_proj_, to_out_dropout_));
}

void AttentionImpl::split_heads_over(std::shared_ptr<TensorParallel> parallel) {
    const int parts = parallel->size();
    const int index = parallel->rank();
    for (lora::LoRALinearImpl* projection : {to_q.get(), to_k.get(), to_v.get()}) {
        projection->keep_output_part(index, parts);
    }
    to_out_proj_->keep_input_part(index, parts);
    heads_ /= parts;
    parallel_ = std::move(parallel);
}

at::Tensor AttentionImpl::split_heads(const at::Tensor& x) const {
    return x.view({x.size(0), -1, heads_, dim_head_}).transpose(1, 2);
}

at::Tensor AttentionImpl::forward(const at::Tensor& tokens_in, std::int64_t text_length,
                                  const std::optional<RotaryEmbedding>& rotary,
                                  const SequenceSplit* split, core::KeptAttention* kept) {
    at::Tensor tokens = tokens_in; // [B, L+N, D]
    if (parallel_) {
        tokens = parallel_->enter(tokens);
    }
    const std::int64_t batch = tokens.size(0);

    const std::vector<at::Tensor> qkv =
        lora::LoRALinearImpl::forward_group({to_q.get(), to_k.get(), to_v.get()}, tokens);
    at::Tensor query =
        norm_and_rotate(qkv[0], heads_, norm_q, text_length, rotary); // [B, h, L+N, d]
    at::Tensor key = norm_and_rotate(qkv[1], heads_, norm_k, text_length, rotary);
    at::Tensor value = split_heads(qkv[2]);

    if (split) {
        // Attention has no mask, so the order of the gathered tokens does not matter as long
        // as the output goes back the same way; rotary was applied at each token's position.
        query = split->exchange->tokens_to_heads(query, split->lengths);
        key = split->exchange->tokens_to_heads(key, split->lengths);
        value = split->exchange->tokens_to_heads(value, split->lengths);
    }
    at::Tensor out = kept ? kept->attend(query, key, value)
                          : core::scaled_dot_product_attention(query, key, value);
    if (split) {
        out = split->exchange->heads_to_tokens(out, split->lengths);
    }
    out = out.transpose(1, 2).reshape({batch, -1, heads_ * dim_head_}); // [B, L+N, D]
    if (parallel_) {
        out = parallel_->leave(to_out_proj_->forward_without_bias(out));
        if (to_out_proj_->bias.defined()) {
            out = out + to_out_proj_->bias;
        }
    } else {
        out = to_out_proj_->forward(out);
    }
    return to_out_dropout_->forward(out);
}

} // namespace tuneframe::models::cogvideox
