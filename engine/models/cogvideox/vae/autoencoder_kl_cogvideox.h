#pragma once

// diffusers' AutoencoderKLCogVideoX (0.32): the causal 3D VAE of CogVideoX, 8x spatial and 4x
// temporal compression. Encode and decode run in frame batches exactly as diffusers does
// (group-norm statistics are per batch, so this is part of the model's numbers), with
// diffusers' optional tiling (tile sizes, overlaps, blending) and batch slicing.
// Videos are [B, C, F, H, W] in [-1, 1]; latents [B, latent_channels, F', H/8, W/8] with
// F' = (F - 1) / 4 + 1 for F = 4k + 1.

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_blocks.h"
#include "engine/models/diagonal_gaussian_distribution.h"
#include "engine/models/module_weights.h"

#include <ATen/core/Generator.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models {

struct AutoencoderKLCogVideoXConfig {
    std::int64_t in_channels = 3;
    std::int64_t out_channels = 3;
    std::int64_t latent_channels = 16;
    std::vector<std::int64_t> block_out_channels = {128, 256, 256, 512};
    std::int64_t layers_per_block = 3;
    double norm_eps = 1e-6;
    std::int64_t norm_num_groups = 32;
    std::int64_t temporal_compression_ratio = 4;
    std::int64_t sample_height = 480; // tiling's default tile is half of these
    std::int64_t sample_width = 720;
    // Latent scaling is the callers' business (diffusers' pipelines and trainers): T2V feeds
    // the transformer sample * scaling_factor and decodes z / scaling_factor; I2V image latents
    // are sample / scaling_factor when invert_scale_latents (CogVideoX 1.5), else
    // sample * scaling_factor.
    double scaling_factor = 1.15258426;
    std::optional<double> shift_factor;
    bool invert_scale_latents = false;
    bool force_upcast = true;

    // `origin` names the file in errors (".../vae/config.json").
    static AutoencoderKLCogVideoXConfig from_json(const nlohmann::json& json,
                                                  const std::string& origin);
    nlohmann::json to_json() const; // the config.json diffusers writes

    std::int64_t spatial_compression_ratio() const;
};

// enable_tiling's arguments; a zero falls back to diffusers' default (tile = half the
// config's sample size, overlap factors 1/6 for height and 1/5 for width).
struct VaeTilingOptions {
    std::int64_t tile_sample_min_height = 0;
    std::int64_t tile_sample_min_width = 0;
    double tile_overlap_factor_height = 0;
    double tile_overlap_factor_width = 0;
};

// The tile geometry in use, as diffusers derives it from the options.
struct VaeTiling {
    std::int64_t sample_height;
    std::int64_t sample_width;
    std::int64_t latent_height;
    std::int64_t latent_width;
    double overlap_factor_height;
    double overlap_factor_width;
};

class AutoencoderKLCogVideoXImpl : public torch::nn::Module {
public:
    AutoencoderKLCogVideoXImpl(const AutoencoderKLCogVideoXConfig& config,
                               const WeightsPlacement& placement = {});

    // Frame batch sizes; anything but diffusers' 8 and 2 changes the numbers.
    static constexpr std::int64_t kSampleFramesBatchSize = 8;
    static constexpr std::int64_t kLatentFramesBatchSize = 2;

    void enable_tiling(const VaeTilingOptions& options = {});
    void disable_tiling() { tiling_.reset(); }
    const std::optional<VaeTiling>& tiling() const { return tiling_; }
    // Encode and decode batch elements one at a time.
    void enable_slicing(bool enabled = true) { slicing_ = enabled; }

    // video: [B, in_channels, F, H, W] in [-1, 1], any float type or device; converted to the
    // model's. F is 1, 8k or 8k + 1 for the frame counts diffusers expects, though any count
    // is processed as diffusers would.
    DiagonalGaussianDistribution encode(const at::Tensor& video) const;
    // latent: [B, latent_channels, F', h, w] (already divided by scaling_factor).
    at::Tensor decode(const at::Tensor& latent) const;

    const AutoencoderKLCogVideoXConfig& config() const { return config_; }
    const WeightsPlacement& placement() const { return placement_; }

private:
    at::Tensor encode_moments(const at::Tensor& video) const;  // _encode
    at::Tensor decode_latents(const at::Tensor& latent) const; // _decode
    at::Tensor encode_frames(const at::Tensor& video) const;
    at::Tensor decode_frames(const at::Tensor& latent) const;
    at::Tensor tiled_encode(const at::Tensor& video) const;
    at::Tensor tiled_decode(const at::Tensor& latent) const;

    AutoencoderKLCogVideoXConfig config_;
    WeightsPlacement placement_;
    std::optional<VaeTiling> tiling_;
    bool slicing_ = false;
    vae::CogVideoXEncoder3D encoder_{nullptr};
    vae::CogVideoXDecoder3D decoder_{nullptr};
};
TORCH_MODULE(AutoencoderKLCogVideoX);

// diffusers' frame batches: max(F / size, 1) batches, the remainder F % size joining the
// first (49 frames by 8: [0, 9), [9, 17), ..., [41, 49)). Half-open [begin, end) pairs.
std::vector<std::pair<std::int64_t, std::int64_t>> vae_frame_batches(std::int64_t frames,
                                                                     std::int64_t batch_size);

// Reads a `vae/` folder: config.json and diffusion_pytorch_model.safetensors.
AutoencoderKLCogVideoX load_autoencoder_kl_cogvideox(const std::filesystem::path& folder,
                                                     const WeightsPlacement& placement = {});

} // namespace tuneframe::models
