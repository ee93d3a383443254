#include "engine/models/layers/feed_forward.h"

#include <torch/torch.h>

namespace tuneframe::models {

GELUImpl::GELUImpl(std::int64_t dim_in, std::int64_t dim_out)
    : proj(register_module("proj", lora::LoRALinear(dim_in, dim_out))) {}

at::Tensor GELUImpl::forward(const at::Tensor& x) {
    return torch::gelu(proj->forward(x), "tanh");
}

FeedForwardImpl::FeedForwardImpl(std::int64_t dim, std::int64_t inner_dim, double dropout)
    : act_(dim, inner_dim)
    , dropout_(dropout)
    , out_(inner_dim, dim)
    , final_dropout_(dropout) {
    net = register_module("net", torch::nn::ModuleList(act_, dropout_, out_, final_dropout_));
}

at::Tensor FeedForwardImpl::forward(const at::Tensor& x) {
    if (!parallel_) {
        return final_dropout_->forward(out_->forward(dropout_->forward(act_->forward(x))));
    }
    at::Tensor hidden = dropout_->forward(act_->forward(parallel_->enter(x)));
    at::Tensor out = parallel_->leave(out_->forward_without_bias(hidden));
    if (out_->bias.defined()) {
        out = out + out_->bias;
    }
    return final_dropout_->forward(out);
}

void FeedForwardImpl::split_features_over(std::shared_ptr<TensorParallel> parallel) {
    act_->proj->keep_output_part(parallel->rank(), parallel->size());
    out_->keep_input_part(parallel->rank(), parallel->size());
    parallel_ = std::move(parallel);
}

} // namespace tuneframe::models
