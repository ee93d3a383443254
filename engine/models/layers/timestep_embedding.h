#pragma once

#include "engine/lora/lora_linear.h"

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

// Ports of diffusers' timestep embeddings (models/embeddings.py), shared by every family.
namespace tuneframe::models {

// Sinusoidal timestep features [N, dim] in float32 (diffusers' get_timestep_embedding),
// evaluated with the same LibTorch ops in the same order, so values match bit for bit.
at::Tensor get_timestep_embedding(const at::Tensor& timesteps, std::int64_t embedding_dim,
                                  bool flip_sin_to_cos, double downscale_freq_shift,
                                  double scale = 1.0, double max_period = 10000.0);

// TimestepEmbedding: linear_1 -> SiLU -> linear_2.
class TimestepEmbeddingImpl : public torch::nn::Module {
public:
    TimestepEmbeddingImpl(std::int64_t in_channels, std::int64_t time_embed_dim);
    at::Tensor forward(const at::Tensor& sample);

    lora::LoRALinear linear_1{nullptr};
    lora::LoRALinear linear_2{nullptr};
};
TORCH_MODULE(TimestepEmbedding);

} // namespace tuneframe::models
