#pragma once

#include "engine/lora/lora_linear.h"
#include "engine/models/tensor_parallel.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/pimpl.h>

// Ports of diffusers' FeedForward (models/attention.py) and its GELU activation
// (models/activations.py) as CogVideoX configures them.
namespace tuneframe::models {

// GELU: a projection followed by tanh-approximated GELU ("gelu-approximate").
//
// The activation is not fused into the projection's GEMM as a cuBLASLt GELU epilogue. LibTorch
// reaches that epilogue only through at::_addmm_activation, which has no derivative in 1.13 or
// 2.6, and its backward would need the pre-activation, which the epilogue's GELU_AUX variant
// keeps but LibTorch does not expose: a training path would call cuBLASLt directly (descriptors,
// workspace, alignment and dtype rules per version), with nothing to run it against here. A LoRA
// adapter on net.0.proj must also be added before the activation. By its memory traffic the
// separate GELU is about 1% of a 2b step on an H200 (issue 36), too little for that risk.
class GELUImpl : public torch::nn::Module {
public:
    GELUImpl(std::int64_t dim_in, std::int64_t dim_out);
    at::Tensor forward(const at::Tensor& x);

    lora::LoRALinear proj{nullptr};
};
TORCH_MODULE(GELU);

// FeedForward: net = [GELU (net.0.proj), Dropout, Linear (net.2), Dropout]. The dropouts hold
// no parameters but occupy indices 1 and 3, which is why the weights sit at net.0 and net.2.
class FeedForwardImpl : public torch::nn::Module {
public:
    FeedForwardImpl(std::int64_t dim, std::int64_t inner_dim, double dropout);
    at::Tensor forward(const at::Tensor& x);
    // Keeps this rank's share of the hidden features (net.0 split by output, net.2 by input)
    // and exchanges through `parallel` from then on. After any LoRA adapters.
    void split_features_over(std::shared_ptr<TensorParallel> parallel);

    torch::nn::ModuleList net{nullptr};

private:
    GELU act_{nullptr};
    torch::nn::Dropout dropout_{nullptr};
    lora::LoRALinear out_{nullptr};
    torch::nn::Dropout final_dropout_{nullptr};
    std::shared_ptr<TensorParallel> parallel_;
};
TORCH_MODULE(FeedForward);

} // namespace tuneframe::models
