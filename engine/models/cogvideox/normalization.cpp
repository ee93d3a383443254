#include "engine/models/cogvideox/normalization.h"

#include "engine/core/kernels/layer_norm_modulate.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {
namespace {

torch::nn::LayerNormOptions layer_norm_options(std::int64_t dim, bool elementwise_affine,
                                               double eps) {
    return torch::nn::LayerNormOptions({dim}).eps(eps).elementwise_affine(elementwise_affine);
}

// norm(x) * (1 + scale) + shift with per-sample [B, D] modulations, `text` on the first
// `text_rows` rows.
at::Tensor norm_and_modulate(const torch::nn::LayerNorm& norm, const at::Tensor& x,
                             const core::Modulation& video, const core::Modulation& text,
                             std::int64_t text_rows) {
    core::LayerNormModulateArgs args;
    args.x = x;
    args.weight = norm->weight;
    args.bias = norm->bias;
    args.eps = norm->options.eps();
    args.video = video;
    args.text = text;
    args.text_rows = text_rows;
    return core::layer_norm_modulate(args);
}

} // namespace

CogVideoXLayerNormZeroImpl::CogVideoXLayerNormZeroImpl(std::int64_t conditioning_dim,
                                                       std::int64_t embedding_dim,
                                                       bool elementwise_affine, double eps)
    : linear(register_module("linear", lora::LoRALinear(conditioning_dim, 6 * embedding_dim)))
    , norm(register_module("norm", torch::nn::LayerNorm(layer_norm_options(
                                       embedding_dim, elementwise_affine, eps)))) {}

CogVideoXLayerNormZeroImpl::Output CogVideoXLayerNormZeroImpl::forward(const at::Tensor& tokens,
                                                                       std::int64_t text_length,
                                                                       const at::Tensor& temb) {
    // shift, scale, gate, enc_shift, enc_scale, enc_gate: each [B, D]
    auto chunks = linear->forward(torch::silu(temb)).chunk(6, 1);
    Output out;
    out.tokens = norm_and_modulate(norm, tokens, {chunks[0], chunks[1]}, {chunks[3], chunks[4]},
                                   text_length);
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
    return norm_and_modulate(norm, x, {chunks[0], chunks[1]}, {}, 0);
}

} // namespace tuneframe::models::cogvideox
