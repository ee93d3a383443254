#pragma once

// diffusers' AutoencoderKLWan (0.40.0): the causal 3-D VAE of Wan 2.1 (8x spatial, 4x temporal,
// 16 latent channels) and Wan 2.2 TI2V-5B (patch 2 then 8x: 16x spatial, 4x temporal, 48
// channels, residual up and down blocks). Encoding runs the clip's first frame alone, then 4
// frames at a time, and decoding one latent frame at a time, through causal feature caches
// exactly as diffusers does; with diffusers' optional spatial tiling and batch slicing.
// Videos are [B, C, F, H, W] in [-1, 1] with F = 1 + 4k; latents [B, z_dim, 1 + k, H/s, W/s].

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"
#include "engine/models/module_weights.h"
#include "engine/models/wan/vae/autoencoder_kl_wan_blocks.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// vae/config.json as diffusers writes it; defaults are diffusers' (the Wan 2.1 VAE).
struct AutoencoderKLWanConfig {
    std::int64_t base_dim = 96;
    std::optional<std::int64_t> decoder_base_dim; // Wan 2.2: the decoder's own width
    std::int64_t z_dim = 16;
    std::vector<std::int64_t> dim_mult = {1, 2, 4, 4};
    std::int64_t num_res_blocks = 2;
    std::vector<double> attn_scales;
    std::vector<bool> temperal_downsample = {false, true, true}; // diffusers' spelling
    double dropout = 0.0;                                        // training only; unused here
    // The pipelines' latent normalisation, per latent channel (see normalize_latents).
    std::vector<double> latents_mean = {-0.7571, -0.7089, -0.9113, 0.1075,  -0.1745, 0.9653,
                                        -0.1517, 1.5508,  0.4134,  -0.0715, 0.5517,  -0.3632,
                                        -0.1922, -0.9497, 0.2503,  -0.2921};
    std::vector<double> latents_std = {2.8184, 1.4541, 2.3275, 2.6558, 1.2196, 1.7708,
                                       2.6052, 2.0743, 3.2687, 2.1526, 2.8652, 1.5579,
                                       1.6382, 1.1253, 2.8251, 1.9160};
    bool is_residual = false;
    std::int64_t in_channels = 3; // the encoder's input, after patchify (3 * p * p)
    std::int64_t out_channels = 3;
    std::optional<std::int64_t> patch_size;
    std::int64_t scale_factor_temporal = 4;
    std::int64_t scale_factor_spatial = 8;
    // Clamp decoded videos to [-1, 1] (diffusers 0.40 always does; later configs may say
    // "clip_output": false).
    bool clip_output = true;

    // `origin` names the file in errors (".../vae/config.json"). Checks that the layout is
    // consistent (level counts, the scale factors it implies, latent statistics per channel).
    static AutoencoderKLWanConfig from_json(const nlohmann::json& json, const std::string& origin);
    nlohmann::json to_json() const; // the config.json diffusers writes
    // The checks from_json makes; a BadInput error names `origin`.
    void check(const std::string& origin) const;

    std::int64_t patch() const { return patch_size.value_or(1); }
    std::int64_t video_channels() const { return in_channels / (patch() * patch()); }
    std::int64_t decoder_dim() const { return decoder_base_dim.value_or(base_dim); }
    // What the blocks compress by: 2^(levels - 1) * patch and 2^(temporal downsamplings).
    std::int64_t spatial_compression_ratio() const;
    std::int64_t temporal_compression_ratio() const;
};

// enable_tiling's arguments, in pixels of the video (diffusers' defaults). Each must be a
// multiple of the spatial compression ratio and a stride at most its tile.
struct WanVaeTiling {
    std::int64_t tile_sample_min_height = 256;
    std::int64_t tile_sample_min_width = 256;
    std::int64_t tile_sample_stride_height = 192;
    std::int64_t tile_sample_stride_width = 192;
};

class AutoencoderKLWanImpl : public torch::nn::Module {
public:
    AutoencoderKLWanImpl(const AutoencoderKLWanConfig& config,
                         const WeightsPlacement& placement = {});

    // Tiles are used for videos larger than a tile (latents larger than a tile's latent).
    void enable_tiling(const WanVaeTiling& tiling = {});
    void disable_tiling() { tiling_.reset(); }
    const std::optional<WanVaeTiling>& tiling() const { return tiling_; }
    // Encode and decode batch elements one at a time.
    void enable_slicing(bool enabled = true) { slicing_ = enabled; }

    // video: [B, video_channels, 1 + 4k, H, W] in [-1, 1], H and W multiples of the spatial
    // ratio; any float type or device (converted to the model's). The posterior's mean and
    // logvar (clamped to [-30, 20]) are [B, z_dim, 1 + k, H/s, W/s].
    models::DiagonalGaussianDistribution encode(const at::Tensor& video) const;
    // latent: [B, z_dim, F', h, w], not normalised (denormalize_latents first) ->
    // [B, out_channels / p^2, 1 + 4(F' - 1), h*s, w*s], clamped to [-1, 1].
    at::Tensor decode(const at::Tensor& latent) const;

    const AutoencoderKLWanConfig& config() const { return config_; }
    const WeightsPlacement& placement() const { return placement_; }

private:
    at::Tensor encode_moments(const at::Tensor& video) const;  // _encode
    at::Tensor decode_latents(const at::Tensor& latent) const; // _decode
    at::Tensor encode_chunks(const at::Tensor& patches) const;
    at::Tensor decode_frames(const at::Tensor& latent) const;
    at::Tensor tiled_encode(const at::Tensor& patches) const;
    at::Tensor tiled_decode(const at::Tensor& latent) const;
    at::Tensor finish_decoded(const at::Tensor& patches) const; // unpatchify, clamp

    AutoencoderKLWanConfig config_;
    WeightsPlacement placement_;
    std::optional<WanVaeTiling> tiling_;
    bool slicing_ = false;
    WanEncoder3d encoder_{nullptr};
    WanCausalConv3d quant_conv_{nullptr};
    WanCausalConv3d post_quant_conv_{nullptr};
    WanDecoder3d decoder_{nullptr};
};
TORCH_MODULE(AutoencoderKLWan);

// The latent normalisation of diffusers' Wan pipelines and finetrainers: (latents - mean) *
// (1 / std) into the transformer's space, latents / (1 / std) + mean back before decode, with
// the reciprocal taken in float32 as `1.0 / torch.tensor(latents_std)` takes it. Computed in
// float32 and returned in the latents' dtype (finetrainers' form; the pipelines compute in the
// latents' dtype, the same for float32). [B, z_dim, F', h, w] on any device.
at::Tensor normalize_latents(const at::Tensor& latents, const AutoencoderKLWanConfig& config);
at::Tensor denormalize_latents(const at::Tensor& latents, const AutoencoderKLWanConfig& config);

// Reads a diffusers `vae/` folder: config.json and diffusion_pytorch_model.safetensors (or its
// shards). Missing, unexpected or mis-shaped weights are one BadInput error naming the file.
AutoencoderKLWan load_autoencoder_kl_wan(const std::filesystem::path& folder,
                                         const WeightsPlacement& placement = {});

// Writes `folder`/config.json and `folder`/diffusion_pytorch_model.safetensors (in `dtype`),
// the layout diffusers' save_pretrained writes.
void save_autoencoder_kl_wan(const AutoencoderKLWanImpl& vae, const std::filesystem::path& folder,
                             c10::ScalarType dtype = c10::kFloat);

} // namespace tuneframe::models::wan
