#pragma once

#include "engine/lora/lora_linear.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <tuple>

// Ports of the adaptive LayerNorms of diffusers' models/normalization.py that CogVideoX uses.
namespace tuneframe::models::cogvideox {

// CogVideoXLayerNormZero: one LayerNorm (and its weights) modulates both the video and the
// text tokens, each with its own shift/scale/gate from the time embedding.
class CogVideoXLayerNormZeroImpl : public torch::nn::Module {
public:
    CogVideoXLayerNormZeroImpl(std::int64_t conditioning_dim, std::int64_t embedding_dim,
                               bool elementwise_affine, double eps);

    struct Output {
        at::Tensor hidden_states;         // [B, N, D]
        at::Tensor encoder_hidden_states; // [B, L, D]
        at::Tensor gate;                  // [B, 1, D]
        at::Tensor encoder_gate;          // [B, 1, D]
    };
    Output forward(const at::Tensor& hidden_states, const at::Tensor& encoder_hidden_states,
                   const at::Tensor& temb);

    lora::LoRALinear linear{nullptr};
    torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(CogVideoXLayerNormZero);

// AdaLayerNorm with chunk_dim 1, as CogVideoX's norm_out uses it. Note the chunk order:
// SHIFT first, then scale (the opposite of most adaLN layers).
class AdaLayerNormImpl : public torch::nn::Module {
public:
    AdaLayerNormImpl(std::int64_t embedding_dim, std::int64_t output_dim, bool elementwise_affine,
                     double eps);

    at::Tensor forward(const at::Tensor& x, const at::Tensor& temb); // [B, N, D]

    lora::LoRALinear linear{nullptr};
    torch::nn::LayerNorm norm{nullptr};
};
TORCH_MODULE(AdaLayerNorm);

} // namespace tuneframe::models::cogvideox
