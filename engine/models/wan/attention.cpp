#include "engine/models/wan/attention.h"

#include "engine/core/kernels/attention.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {

WanAttentionImpl::WanAttentionImpl(std::int64_t dim, std::int64_t heads, std::int64_t dim_head,
                                   double eps, std::optional<std::int64_t> added_kv_proj_dim)
    : heads_(heads)
    , dim_head_(dim_head) {
    const std::int64_t inner_dim = heads * dim_head;
    to_q = register_module("to_q", lora::LoRALinear(dim, inner_dim));
    to_k = register_module("to_k", lora::LoRALinear(dim, inner_dim));
    to_v = register_module("to_v", lora::LoRALinear(dim, inner_dim));
    to_out_proj_ = lora::LoRALinear(inner_dim, dim);
    to_out_dropout_ = torch::nn::Dropout(0.0);
    to_out = register_module("to_out", torch::nn::ModuleList(to_out_proj_, to_out_dropout_));
    norm_q = register_module("norm_q", RMSNorm(inner_dim, eps));
    norm_k = register_module("norm_k", RMSNorm(inner_dim, eps));
    if (added_kv_proj_dim) {
        add_k_proj = register_module("add_k_proj", lora::LoRALinear(*added_kv_proj_dim, inner_dim));
        add_v_proj = register_module("add_v_proj", lora::LoRALinear(*added_kv_proj_dim, inner_dim));
        norm_added_k = register_module("norm_added_k", RMSNorm(inner_dim, eps));
    }
}

void WanAttentionImpl::split_heads_over(const std::shared_ptr<TensorParallel>& parallel) {
    const int parts = parallel->size();
    const int index = parallel->rank();
    for (lora::LoRALinear* projection : {&to_q, &to_k, &to_v, &add_k_proj, &add_v_proj}) {
        if (!projection->is_empty()) {
            (*projection)->keep_output_part(index, parts);
        }
    }
    for (RMSNorm* norm : {&norm_q, &norm_k, &norm_added_k}) {
        if (!norm->is_empty()) {
            (*norm)->keep_part(parallel);
        }
    }
    to_out_proj_->keep_input_part(index, parts);
    heads_ /= parts;
    parallel_ = parallel;
}

at::Tensor WanAttentionImpl::split_heads(const at::Tensor& x) const {
    return x.view({x.size(0), x.size(1), heads_, dim_head_});
}

at::Tensor WanAttentionImpl::project_out(const at::Tensor& x) {
    if (!parallel_) {
        return to_out_dropout_->forward(to_out_proj_->forward(x));
    }
    at::Tensor out = parallel_->leave(to_out_proj_->forward_without_bias(x));
    if (to_out_proj_->bias.defined()) {
        out = out + to_out_proj_->bias;
    }
    return to_out_dropout_->forward(out);
}

at::Tensor WanAttentionImpl::forward(const at::Tensor& hidden_states,
                                     const at::Tensor& encoder_hidden_states,
                                     const RotaryTables* rotary, const SequenceSplit* split,
                                     core::KeptAttention* kept) {
    at::Tensor hidden = parallel_ ? parallel_->enter(hidden_states) : hidden_states;
    at::Tensor context = hidden;
    if (encoder_hidden_states.defined()) {
        context = parallel_ ? parallel_->enter(encoder_hidden_states) : encoder_hidden_states;
    }
    at::Tensor image;
    if (!add_k_proj.is_empty()) {
        const std::int64_t image_length = context.size(1) - kTextContextLength;
        image = context.narrow(1, 0, image_length);
        context = context.narrow(1, image_length, kTextContextLength);
    }

    at::Tensor query = split_heads(norm_q->forward(to_q->forward(hidden))); // [B, N, h, d]
    at::Tensor key = split_heads(norm_k->forward(to_k->forward(context)));
    at::Tensor value = split_heads(to_v->forward(context));
    if (rotary) {
        query = apply_rotary_emb(query, *rotary);
        key = apply_rotary_emb(key, *rotary);
    }
    query = query.transpose(1, 2); // [B, h, N, d]
    key = key.transpose(1, 2);
    value = value.transpose(1, 2);

    at::Tensor image_out;
    if (image.defined()) {
        const at::Tensor image_key =
            split_heads(norm_added_k->forward(add_k_proj->forward(image))).transpose(1, 2);
        const at::Tensor image_value = split_heads(add_v_proj->forward(image)).transpose(1, 2);
        image_out = core::scaled_dot_product_attention(query, image_key, image_value);
    }

    if (split) {
        // No mask, so the gathered order only has to match on the way back.
        query = split->exchange->tokens_to_heads(query, split->lengths);
        key = split->exchange->tokens_to_heads(key, split->lengths);
        value = split->exchange->tokens_to_heads(value, split->lengths);
    }
    at::Tensor out = kept ? kept->attend(query, key, value)
                          : core::scaled_dot_product_attention(query, key, value);
    if (split) {
        out = split->exchange->heads_to_tokens(out, split->lengths);
    }
    const std::int64_t batch = hidden.size(0);
    out = out.transpose(1, 2).reshape({batch, -1, heads_ * dim_head_}); // [B, N, h*d]
    if (image_out.defined()) {
        out = out + image_out.transpose(1, 2).reshape({batch, -1, heads_ * dim_head_});
    }
    return project_out(out);
}

} // namespace tuneframe::models::wan
