#pragma once

#include <ATen/Tensor.h>

#include <optional>

namespace tuneframe::models {

// The posterior diffusers' encode returns: log-variance clamped to [-30, 20].
struct DiagonalGaussianDistribution {
    at::Tensor mean;   // [B, latent, F', h, w]
    at::Tensor logvar; // clamped
    at::Tensor std;

    explicit DiagonalGaussianDistribution(const at::Tensor& parameters);
    const at::Tensor& mode() const { return mean; }
    // mean + std * eps with eps ~ N(0, 1) in the latents' dtype, drawn as diffusers'
    // randn_tensor does: on the generator's device (a CPU generator for CUDA latents draws on
    // the CPU and moves the noise), so a seeded CPU generator reproduces diffusers.
    at::Tensor sample(std::optional<at::Generator> generator = std::nullopt) const;
    at::Tensor sample_with_noise(const at::Tensor& noise) const;
};

} // namespace tuneframe::models
