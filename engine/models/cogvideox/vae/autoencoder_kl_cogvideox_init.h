#pragma once

// Random AutoencoderKLCogVideoX folders for init-model and benchmarks.

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <cstdint>
#include <filesystem>

namespace tuneframe::models {

// A VAE with the real one's block structure (8x spatial, 4x temporal compression, frame
// batching, tiling) but few channels: a 9-frame 32x32 clip encodes in milliseconds on a CPU.
// `latent_channels` must equal the transformer's in_channels (16, or 32 for image-to-video
// models, whose VAE still has 16 and whose transformer concatenates image latents).
AutoencoderKLCogVideoXConfig
tiny_autoencoder_kl_cogvideox_config(std::int64_t latent_channels = 16);

// PyTorch's default initialisation, seeded: convolution weights and biases uniform in
// +-1/sqrt(fan_in), norm weights one and biases zero.
void initialise_autoencoder_kl_cogvideox(AutoencoderKLCogVideoXImpl& vae, std::uint64_t seed);

// Writes `folder`/config.json and `folder`/diffusion_pytorch_model.safetensors (in `dtype`),
// the layout diffusers' save_pretrained writes.
void write_random_autoencoder_kl_cogvideox(const AutoencoderKLCogVideoXConfig& config,
                                           const std::filesystem::path& folder, std::uint64_t seed,
                                           c10::ScalarType dtype = c10::kFloat);

} // namespace tuneframe::models
