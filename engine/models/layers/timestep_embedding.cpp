#include "engine/models/layers/timestep_embedding.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models {

using torch::indexing::Slice;

at::Tensor get_timestep_embedding(const at::Tensor& timesteps, std::int64_t embedding_dim,
                                  bool flip_sin_to_cos, double downscale_freq_shift, double scale,
                                  double max_period) {
    const std::int64_t half = embedding_dim / 2;
    at::Tensor exponent =
        torch::arange(0, half,
                      torch::TensorOptions().dtype(torch::kFloat32).device(timesteps.device())) *
        -std::log(max_period);
    exponent = exponent / (static_cast<double>(half) - downscale_freq_shift);
    at::Tensor emb = torch::exp(exponent);
    emb = timesteps.reshape({-1, 1}).to(torch::kFloat32) * emb.unsqueeze(0); // [N, half]
    emb = emb * scale;
    emb = torch::cat({torch::sin(emb), torch::cos(emb)}, -1);
    if (flip_sin_to_cos) {
        emb = torch::cat({emb.index({Slice(), Slice(half)}), emb.index({Slice(), Slice(0, half)})},
                         -1);
    }
    if (embedding_dim % 2 == 1) {
        emb = torch::constant_pad_nd(emb, {0, 1, 0, 0});
    }
    return emb;
}

TimestepEmbeddingImpl::TimestepEmbeddingImpl(std::int64_t in_channels, std::int64_t time_embed_dim)
    : linear_1(register_module("linear_1", lora::LoRALinear(in_channels, time_embed_dim)))
    , linear_2(register_module("linear_2", lora::LoRALinear(time_embed_dim, time_embed_dim))) {}

at::Tensor TimestepEmbeddingImpl::forward(const at::Tensor& sample) {
    return linear_2->forward(torch::silu(linear_1->forward(sample)));
}

} // namespace tuneframe::models
