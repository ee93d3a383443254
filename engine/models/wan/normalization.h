#pragma once

#include "engine/models/tensor_parallel.h"

#include <ATen/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <memory>

// The norms WanTransformer3DModel uses: diffusers' FP32LayerNorm (models/normalization.py) and
// torch.nn.RMSNorm, which LibTorch 1.13 lacks.
namespace tuneframe::models::wan {

// LayerNorm over the last dimension computed in float32 (input, weight and bias upcast), the
// result cast back to the input's dtype.
class FP32LayerNormImpl : public torch::nn::Module {
public:
    FP32LayerNormImpl(std::int64_t dim, double eps, bool elementwise_affine);
    at::Tensor forward(const at::Tensor& x);
    double eps() const { return eps_; }

    at::Tensor weight; // undefined without elementwise_affine
    at::Tensor bias;

private:
    std::int64_t dim_;
    double eps_;
};
TORCH_MODULE(FP32LayerNorm);

// torch.nn.RMSNorm over the last dimension: x / sqrt(mean(x^2) + eps) in float32 for bf16/fp16
// inputs, cast back, then times the weight. Wan normalises q and k across all heads at once, so
// under tensor parallelism each rank holds a share of the features: the mean then needs every
// rank's sum of squares, which goes through TensorParallel::reduce.
class RMSNormImpl : public torch::nn::Module {
public:
    RMSNormImpl(std::int64_t dim, double eps);
    at::Tensor forward(const at::Tensor& x);
    // Keeps this rank's run of the features (and of the weight) and sums the squares over
    // `parallel` from then on.
    void keep_part(const std::shared_ptr<TensorParallel>& parallel);

    at::Tensor weight;

private:
    std::int64_t dim_; // the whole model's, split or not
    double eps_;
    std::shared_ptr<TensorParallel> parallel_;
};
TORCH_MODULE(RMSNorm);

} // namespace tuneframe::models::wan
