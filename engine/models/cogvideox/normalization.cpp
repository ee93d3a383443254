#include "engine/models/cogvideox/normalization.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {
namespace {

torch::nn::LayerNormOptions layer_norm_options(std::int64_t dim, bool elementwise_affine,
                                               double eps) {
    return torch::nn::LayerNormOptions({dim}).eps(eps).elementwise_affine(elementwise_affine);
}

// x * (1 + scale) + shift with per-sample [B, D] modulation broadcast over tokens.
at::Tensor modulate(const at::Tensor& x, const at::Tensor& shift, const at::Tensor& scale) {
    return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1);
}

} // namespace

CogVideoXLayerNormZeroImpl::CogVideoXLayerNormZeroImpl(std::int64_t conditioning_dim,
                                                       std::int64_t embedding_dim,
                                                       bool elementwise_affine, double eps)
    : linear(register_module("linear", lora::LoRALinear(conditioning_dim, 6 * embedding_dim)))
    , norm(register_module("norm", torch::nn::LayerNorm(layer_norm_options(
                                       embedding_dim, elementwise_affine, eps)))) {}

CogVideoXLayerNormZeroImpl::Output
CogVideoXLayerNormZeroImpl::forward(const at::Tensor& hidden_states,
                                    const at::Tensor& encoder_hidden_states,
                                    const at::Tensor& temb) {
    // shift, scale, gate, enc_shift, enc_scale, enc_gate: each [B, D]
    auto chunks = linear->forward(torch::silu(temb)).chunk(6, 1);
    Output out;
    out.hidden_states = modulate(norm->forward(hidden_states), chunks[0], chunks[1]);
    out.encoder_hidden_states =
        modulate(norm->forward(encoder_hidden_states), chunks[3], chunks[4]);
    out.gate = chunks[2].unsqueeze(1);
    out.encoder_gate = chunks[5].unsqueeze(1);
    return out;
}

AdaLayerNormImpl::AdaLayerNormImpl(std::int64_t embedding_dim, std::int64_t output_dim,
                                   bool elementwise_affine, double eps)
    : linear(register_module("linear", lora::LoRALinear(embedding_dim, output_dim)))
    , norm(register_module("norm", torch::nn::LayerNorm(layer_norm_options(
                                       output_dim / 2, elementwise_affine, eps)))) {}

at::Tensor AdaLayerNormImpl::forward(const at::Tensor& x, const at::Tensor& temb) {
    auto chunks = linear->forward(torch::silu(temb)).chunk(2, 1); // shift, scale
    return modulate(norm->forward(x), chunks[0], chunks[1]);
}

} // namespace tuneframe::models::cogvideox
