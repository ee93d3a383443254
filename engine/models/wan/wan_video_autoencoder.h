#pragma once

#include "engine/models/model_components.h"
#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include <filesystem>

namespace tuneframe::models::wan {

// AutoencoderKLWan as the engine's VideoAutoencoder; tiles as diffusers' enable_tiling (a 0
// option takes diffusers' default; an overlap fraction sets the stride).
class WanVideoAutoencoder : public VideoAutoencoder {
public:
    WanVideoAutoencoder(const std::filesystem::path& folder, const WeightsPlacement& placement,
                        const VaeOptions& options);

    DiagonalGaussianDistribution encode(const at::Tensor& video) override;
    at::Tensor decode(const at::Tensor& latents) override;

private:
    AutoencoderKLWan vae_;
};

} // namespace tuneframe::models::wan
