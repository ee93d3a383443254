#pragma once

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"
#include "engine/models/model_components.h"

#include <filesystem>

namespace tuneframe::models::cogvideox {

// AutoencoderKLCogVideoX as the engine's VideoAutoencoder; tiles as diffusers' enable_tiling
// (a 0 option takes diffusers' default).
class CogVideoXVideoAutoencoder : public VideoAutoencoder {
public:
    CogVideoXVideoAutoencoder(const std::filesystem::path& folder,
                              const WeightsPlacement& placement, const VaeOptions& options);

    DiagonalGaussianDistribution encode(const at::Tensor& video) override;
    at::Tensor decode(const at::Tensor& latents) override;

private:
    AutoencoderKLCogVideoX vae_;
};

} // namespace tuneframe::models::cogvideox
