#include "engine/models/wan/normalization.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

// The dtype torch computes a norm of `x` in (its "opmath" type).
at::Tensor upcast(const at::Tensor& x) {
    const auto type = x.scalar_type();
    return type == torch::kBFloat16 || type == torch::kHalf ? x.to(torch::kFloat32) : x;
}

} // namespace

FP32LayerNormImpl::FP32LayerNormImpl(std::int64_t dim, double eps, bool elementwise_affine)
    : dim_(dim)
    , eps_(eps) {
    if (elementwise_affine) {
        weight = register_parameter("weight", torch::ones({dim}));
        bias = register_parameter("bias", torch::zeros({dim}));
    }
}

at::Tensor FP32LayerNormImpl::forward(const at::Tensor& x) {
    const auto as_float = [](const at::Tensor& t) {
        return t.defined() ? t.to(torch::kFloat32) : t;
    };
    return at::layer_norm(x.to(torch::kFloat32), {dim_}, as_float(weight), as_float(bias), eps_)
        .to(x.scalar_type());
}

RMSNormImpl::RMSNormImpl(std::int64_t dim, double eps)
    : dim_(dim)
    , eps_(eps) {
    weight = register_parameter("weight", torch::ones({dim}));
}

at::Tensor RMSNormImpl::forward(const at::Tensor& x) {
    const at::Tensor up = upcast(x);
    at::Tensor mean_square;
    if (parallel_) {
        mean_square =
            parallel_->reduce(up.pow(2).sum(-1, /*keepdim=*/true)) / static_cast<double>(dim_);
    } else {
        mean_square = up.pow(2).mean(-1, /*keepdim=*/true);
    }
    return (up * torch::rsqrt(mean_square + eps_)).to(x.scalar_type()) * weight;
}

void RMSNormImpl::keep_part(const std::shared_ptr<TensorParallel>& parallel) {
    torch::NoGradGuard no_grad;
    const std::int64_t length = weight.size(0) / parallel->size();
    weight.set_data(weight.narrow(0, parallel->rank() * length, length).clone());
    parallel_ = parallel;
}

} // namespace tuneframe::models::wan
