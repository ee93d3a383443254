#include "engine/models/wan/wan_video_autoencoder.h"

#include <cmath>

namespace tuneframe::models::wan {
namespace {

// A stride that leaves `overlap` of a tile shared with the next, on the VAE's grid.
std::int64_t stride_of(std::int64_t tile, double overlap, std::int64_t fallback,
                       std::int64_t grid) {
    if (overlap <= 0) {
        return std::min(fallback, tile);
    }
    const auto stride = static_cast<std::int64_t>(std::llround(tile * (1 - overlap)));
    return std::max(grid, stride / grid * grid);
}

} // namespace

WanVideoAutoencoder::WanVideoAutoencoder(const std::filesystem::path& folder,
                                         const WeightsPlacement& placement,
                                         const VaeOptions& options)
    : vae_(load_autoencoder_kl_wan(folder, placement)) {
    if (options.tiling) {
        WanVaeTiling tiles;
        const std::int64_t grid = vae_->config().spatial_compression_ratio();
        if (options.tile_height > 0) {
            tiles.tile_sample_min_height = options.tile_height;
        }
        if (options.tile_width > 0) {
            tiles.tile_sample_min_width = options.tile_width;
        }
        tiles.tile_sample_stride_height =
            stride_of(tiles.tile_sample_min_height, options.tile_overlap_height,
                      tiles.tile_sample_stride_height, grid);
        tiles.tile_sample_stride_width =
            stride_of(tiles.tile_sample_min_width, options.tile_overlap_width,
                      tiles.tile_sample_stride_width, grid);
        vae_->enable_tiling(tiles);
    }
    vae_->enable_slicing(options.slicing);
}

DiagonalGaussianDistribution WanVideoAutoencoder::encode(const at::Tensor& video) {
    return vae_->encode(video);
}

at::Tensor WanVideoAutoencoder::decode(const at::Tensor& latents) {
    return vae_->decode(latents);
}

} // namespace tuneframe::models::wan
