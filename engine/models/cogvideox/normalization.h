#pragma once

#include "engine/lora/lora_linear.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <tuple>

// Ports of the adaptive LayerNorms of diffusers' models/normalization.py that CogVideoX uses.
namespace tuneframe::models::cogvideox {

// CogVideoXLayerNormZero: one LayerNorm (and its weights) modulates both the video and the
// text tokens, each with its own shift/scale/gate from the time embedding. The block keeps both
// in one buffer, text first, so one pass (core::layer_norm_modulate) serves both.
class CogVideoXLayerNormZeroImpl : public torch::nn::Module {
public:
    CogVideoXLayerNormZeroImpl(std::int64_t conditioning_dim, std::int64_t embedding_dim,
                               bool elementwise_affine, double eps);

    struct Output {
        at::Tensor tokens;       // [B, L+N, D], normalised and modulated
        at::Tensor gate;         // [B, 1, D], the video rows'
        at::Tensor encoder_gate; // [B, 1, D], the text rows'
    };
    // tokens [B, L+N, D] (the first `text_length` rows text), temb [B, E].
    Output forward(const at::Tensor& tokens, std::int64_t text_length, const at::Tensor& temb);

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
