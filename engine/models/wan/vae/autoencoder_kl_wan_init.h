#pragma once

// Random AutoencoderKLWan folders for init-model, tiny test pipelines and benchmarks.

#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include <cstdint>
#include <filesystem>

namespace tuneframe::models::wan {

// The real VAEs' block structure with few channels (a 9-frame 32x32 clip codes in well under a
// second on a CPU): Wan 2.1 (8x spatial, 4x temporal, z_dim 16) and Wan 2.2 TI2V (patch 2,
// residual blocks, 16x spatial, z_dim 48 with the real VAE's latent statistics). z_dim must
// equal the transformer's latent channels.
AutoencoderKLWanConfig tiny_wan21_vae_config();
AutoencoderKLWanConfig tiny_wan22_vae_config();

// PyTorch's default initialisation, seeded (the same weights on every device): convolution
// weights and biases uniform in +-1/sqrt(fan_in), RMS norm gammas one.
void initialise_autoencoder_kl_wan(AutoencoderKLWanImpl& vae, std::uint64_t seed);

// Writes `folder`/config.json and `folder`/diffusion_pytorch_model.safetensors (in `dtype`) for
// a randomly initialised VAE of `config`.
void write_random_autoencoder_kl_wan(const AutoencoderKLWanConfig& config,
                                     const std::filesystem::path& folder, std::uint64_t seed,
                                     c10::ScalarType dtype = c10::kFloat);

} // namespace tuneframe::models::wan
