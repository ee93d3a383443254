#include "engine/models/cogvideox/cogvideox_video_autoencoder.h"

namespace tuneframe::models::cogvideox {

CogVideoXVideoAutoencoder::CogVideoXVideoAutoencoder(const std::filesystem::path& folder,
                                                     const WeightsPlacement& placement,
                                                     const VaeOptions& options)
    : vae_(load_autoencoder_kl_cogvideox(folder, placement)) {
    if (options.tiling) {
        VaeTilingOptions tiles;
        tiles.tile_sample_min_height = options.tile_height;
        tiles.tile_sample_min_width = options.tile_width;
        tiles.tile_overlap_factor_height = options.tile_overlap_height;
        tiles.tile_overlap_factor_width = options.tile_overlap_width;
        vae_->enable_tiling(tiles);
    }
    vae_->enable_slicing(options.slicing);
}

DiagonalGaussianDistribution CogVideoXVideoAutoencoder::encode(const at::Tensor& video) {
    return vae_->encode(video);
}

at::Tensor CogVideoXVideoAutoencoder::decode(const at::Tensor& latents) {
    return vae_->decode(latents);
}

} // namespace tuneframe::models::cogvideox
