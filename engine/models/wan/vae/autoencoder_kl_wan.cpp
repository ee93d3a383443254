#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include "engine/models/vae_tiles.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

// diffusers' encode chunks: the clip's first frame alone, then this many frames at a time.
constexpr std::int64_t kEncodeChunkFrames = 4;

std::string decimal(std::int64_t value) {
    return std::to_string(value);
}

void check_tensor(const at::Tensor& tensor, std::int64_t channels, const char* what,
                  const char* layout) {
    if (!tensor.defined() || tensor.dim() != 5 || !tensor.is_floating_point() ||
        tensor.numel() == 0 || tensor.size(1) != channels) {
        const std::string found =
            tensor.defined()
                ? std::string(c10::toString(tensor.scalar_type())) + " " + c10::str(tensor.sizes())
                : "an undefined tensor";
        throw Error(ErrorCode::BadInput,
                    std::string("the Wan VAE takes ") + what + " as a float [batch, " +
                        decimal(channels) + ", " + layout + "] tensor, not " + found + ".",
                    "Pass [B, C, F, H, W] tensors (videos in [-1, 1]) with the channel count of "
                    "the VAE's config.json.");
    }
}

void check_video(const at::Tensor& video, const AutoencoderKLWanConfig& config) {
    check_tensor(video, config.video_channels(), "videos", "frames, height, width");
    const std::int64_t frames = video.size(2);
    if ((frames - 1) % kEncodeChunkFrames != 0) {
        const std::int64_t below = frames - 1 - (frames - 1) % kEncodeChunkFrames + 1;
        throw Error(ErrorCode::BadInput,
                    "the Wan VAE encodes 1 + 4k frames (1, 5, 9, ..., 81), not " + decimal(frames) +
                        ": it codes the first frame alone and then 4 frames per latent frame.",
                    "Trim the clip to " + decimal(below) + " frames or pad it to " +
                        decimal(below + kEncodeChunkFrames) + ".");
    }
    const std::int64_t ratio = config.spatial_compression_ratio();
    const std::int64_t height = video.size(3);
    const std::int64_t width = video.size(4);
    if (height % ratio != 0 || width % ratio != 0) {
        const auto round = [ratio](std::int64_t size) {
            return std::max(ratio, size / ratio * ratio);
        };
        throw Error(ErrorCode::BadInput,
                    "the Wan VAE needs a height and width that are multiples of " + decimal(ratio) +
                        " (its spatial compression), not " + decimal(height) + "x" +
                        decimal(width) + ".",
                    "Resize or crop the video to a multiple of " + decimal(ratio) + ", e.g. " +
                        decimal(round(height)) + "x" + decimal(round(width)) + ".");
    }
}

void check_tiling(const WanVaeTiling& tiling, std::int64_t ratio) {
    const std::array<std::pair<std::int64_t, std::int64_t>, 2> pairs = {
        std::pair{tiling.tile_sample_min_height, tiling.tile_sample_stride_height},
        std::pair{tiling.tile_sample_min_width, tiling.tile_sample_stride_width}};
    for (const auto& [tile, stride] : pairs) {
        if (tile <= 0 || stride <= 0 || tile % ratio != 0 || stride % ratio != 0 || stride > tile) {
            throw Error(ErrorCode::BadInput,
                        "Wan VAE tiles of " + decimal(tiling.tile_sample_min_height) + "x" +
                            decimal(tiling.tile_sample_min_width) + " pixels with strides " +
                            decimal(tiling.tile_sample_stride_height) + "x" +
                            decimal(tiling.tile_sample_stride_width) +
                            " do not fit: tiles and strides must be positive multiples of " +
                            decimal(ratio) +
                            " (the spatial compression) and no stride larger than "
                            "its tile.",
                        "Use diffusers' defaults (256 pixel tiles, stride 192) or other "
                        "multiples of " +
                            decimal(ratio) + ".");
        }
    }
}

using models::TileGrid;

at::Tensor statistics(const std::vector<double>& values, const at::Tensor& like) {
    std::vector<float> floats(values.begin(), values.end());
    return torch::tensor(floats, torch::kFloat)
        .to(like.device())
        .view({1, static_cast<std::int64_t>(floats.size()), 1, 1, 1});
}

void check_latents(const at::Tensor& latents, const AutoencoderKLWanConfig& config) {
    check_tensor(latents, config.z_dim, "latents", "latent frames, height, width");
}

} // namespace

AutoencoderKLWanImpl::AutoencoderKLWanImpl(const AutoencoderKLWanConfig& config,
                                           const WeightsPlacement& placement)
    : config_(config)
    , placement_(placement) {
    config.check("the Wan VAE's config");
    check_placement(placement);
    const c10::TensorOptions options = placement.options();
    WanCoderShape shape;
    shape.in_channels = config.in_channels;
    shape.out_channels = config.z_dim * 2;
    shape.dim = config.base_dim;
    shape.dim_mult = config.dim_mult;
    shape.num_res_blocks = config.num_res_blocks;
    shape.attn_scales = config.attn_scales;
    shape.temporal = config.temperal_downsample;
    shape.is_residual = config.is_residual;
    encoder_ = register_module("encoder", WanEncoder3d(shape, options));
    quant_conv_ = register_module(
        "quant_conv", WanCausalConv3d(config.z_dim * 2, config.z_dim * 2, 1, 0, options));
    post_quant_conv_ = register_module("post_quant_conv",
                                       WanCausalConv3d(config.z_dim, config.z_dim, 1, 0, options));
    shape.in_channels = config.z_dim;
    shape.out_channels = config.out_channels;
    shape.dim = config.decoder_dim();
    shape.temporal.assign(config.temperal_downsample.rbegin(), config.temperal_downsample.rend());
    decoder_ = register_module("decoder", WanDecoder3d(shape, options));
}

void AutoencoderKLWanImpl::enable_tiling(const WanVaeTiling& tiling) {
    check_tiling(tiling, config_.spatial_compression_ratio());
    tiling_ = tiling;
}

models::DiagonalGaussianDistribution AutoencoderKLWanImpl::encode(const at::Tensor& video) const {
    check_video(video, config_);
    torch::NoGradGuard no_grad;
    const at::Tensor x = video.to(placement_.device, placement_.dtype);
    if (!slicing_ || x.size(0) == 1) {
        return models::DiagonalGaussianDistribution(encode_moments(x));
    }
    std::vector<at::Tensor> slices;
    for (const at::Tensor& slice : x.split(1)) {
        slices.push_back(encode_moments(slice));
    }
    return models::DiagonalGaussianDistribution(at::cat(slices));
}

at::Tensor AutoencoderKLWanImpl::decode(const at::Tensor& latent) const {
    check_latents(latent, config_);
    torch::NoGradGuard no_grad;
    const at::Tensor z = latent.to(placement_.device, placement_.dtype);
    if (!slicing_ || z.size(0) == 1) {
        return decode_latents(z);
    }
    std::vector<at::Tensor> slices;
    for (const at::Tensor& slice : z.split(1)) {
        slices.push_back(decode_latents(slice));
    }
    return at::cat(slices);
}

at::Tensor AutoencoderKLWanImpl::encode_moments(const at::Tensor& video) const {
    const at::Tensor patches = patchify(video, config_.patch());
    // diffusers compares the video's own size (before patchify) with the tile.
    if (tiling_ && (video.size(4) > tiling_->tile_sample_min_width ||
                    video.size(3) > tiling_->tile_sample_min_height)) {
        return tiled_encode(patches);
    }
    return quant_conv_->forward(encode_chunks(patches));
}

at::Tensor AutoencoderKLWanImpl::decode_latents(const at::Tensor& latent) const {
    const std::int64_t ratio = config_.spatial_compression_ratio();
    if (tiling_ && (latent.size(4) > tiling_->tile_sample_min_width / ratio ||
                    latent.size(3) > tiling_->tile_sample_min_height / ratio)) {
        return tiled_decode(latent);
    }
    return finish_decoded(decode_frames(post_quant_conv_->forward(latent)));
}

at::Tensor AutoencoderKLWanImpl::encode_chunks(const at::Tensor& patches) const {
    WanFeatureCache cache;
    std::vector<at::Tensor> parts;
    const std::int64_t frames = patches.size(2);
    for (std::int64_t begin = 0; begin < frames;) {
        const std::int64_t length = begin == 0 ? 1 : kEncodeChunkFrames;
        cache.begin_chunk();
        parts.push_back(encoder_->forward(patches.narrow(2, begin, length), cache));
        begin += length;
    }
    return at::cat(parts, 2); // [B, 2 * z_dim, 1 + (F - 1) / 4, h, w]
}

at::Tensor AutoencoderKLWanImpl::decode_frames(const at::Tensor& latent) const {
    WanFeatureCache cache;
    std::vector<at::Tensor> parts;
    for (std::int64_t i = 0; i < latent.size(2); ++i) {
        cache.begin_chunk();
        parts.push_back(decoder_->forward(latent.narrow(2, i, 1), cache));
    }
    return at::cat(parts, 2); // [B, out_channels, 1 + 4 (F' - 1), h * s / p, w * s / p]
}

at::Tensor AutoencoderKLWanImpl::finish_decoded(const at::Tensor& patches) const {
    at::Tensor video = unpatchify(patches, config_.patch());
    return config_.clip_output ? video.clamp(-1.0, 1.0) : video;
}

at::Tensor AutoencoderKLWanImpl::tiled_encode(const at::Tensor& patches) const {
    const WanVaeTiling& tiling = *tiling_;
    // Tiles are cut from the patchified video with the pixel sizes as they are, as diffusers
    // does; the encoder then compresses by the ratio without the patch.
    const std::int64_t ratio = config_.spatial_compression_ratio() / config_.patch();
    const std::int64_t latent_tile_height = tiling.tile_sample_min_height / ratio;
    const std::int64_t latent_tile_width = tiling.tile_sample_min_width / ratio;
    const std::int64_t latent_stride_height = tiling.tile_sample_stride_height / ratio;
    const std::int64_t latent_stride_width = tiling.tile_sample_stride_width / ratio;
    TileGrid rows = code_tiles(
        patches, tiling.tile_sample_min_height, tiling.tile_sample_min_width,
        tiling.tile_sample_stride_height, tiling.tile_sample_stride_width,
        [this](const at::Tensor& tile) { return quant_conv_->forward(encode_chunks(tile)); });
    return join_tiles(rows, latent_tile_height - latent_stride_height,
                      latent_tile_width - latent_stride_width, latent_stride_height,
                      latent_stride_width)
        .slice(3, 0, patches.size(3) / ratio)
        .slice(4, 0, patches.size(4) / ratio);
}

at::Tensor AutoencoderKLWanImpl::tiled_decode(const at::Tensor& latent) const {
    const WanVaeTiling& tiling = *tiling_;
    const std::int64_t ratio = config_.spatial_compression_ratio();
    const std::int64_t patch = config_.patch();
    // The decoder's tiles are patchified video: the pixel sizes divided by the patch.
    const std::int64_t stride_height = tiling.tile_sample_stride_height / patch;
    const std::int64_t stride_width = tiling.tile_sample_stride_width / patch;
    TileGrid rows = code_tiles(
        latent, tiling.tile_sample_min_height / ratio, tiling.tile_sample_min_width / ratio,
        tiling.tile_sample_stride_height / ratio, tiling.tile_sample_stride_width / ratio,
        [this](const at::Tensor& tile) { return decode_frames(post_quant_conv_->forward(tile)); });
    const at::Tensor joined =
        join_tiles(rows, tiling.tile_sample_min_height / patch - stride_height,
                   tiling.tile_sample_min_width / patch - stride_width, stride_height, stride_width)
            .slice(3, 0, latent.size(3) * ratio / patch)
            .slice(4, 0, latent.size(4) * ratio / patch);
    return finish_decoded(joined);
}

at::Tensor normalize_latents(const at::Tensor& latents, const AutoencoderKLWanConfig& config) {
    check_latents(latents, config);
    const at::Tensor mean = statistics(config.latents_mean, latents);
    const at::Tensor reciprocal = statistics(config.latents_std, latents).reciprocal();
    return ((latents.to(at::kFloat) - mean) * reciprocal).to(latents.scalar_type());
}

at::Tensor denormalize_latents(const at::Tensor& latents, const AutoencoderKLWanConfig& config) {
    check_latents(latents, config);
    const at::Tensor mean = statistics(config.latents_mean, latents);
    const at::Tensor reciprocal = statistics(config.latents_std, latents).reciprocal();
    return (latents.to(at::kFloat) / reciprocal + mean).to(latents.scalar_type());
}

AutoencoderKLWan load_autoencoder_kl_wan(const std::filesystem::path& folder,
                                         const WeightsPlacement& placement) {
    const std::filesystem::path config_path = folder / "config.json";
    const auto config =
        AutoencoderKLWanConfig::from_json(core::read_json_file(config_path), config_path.string());
    AutoencoderKLWan vae(config, placement);
    load_module_weights(*vae, core::SafetensorsCheckpoint(folder));
    return vae;
}

void save_autoencoder_kl_wan(const AutoencoderKLWanImpl& vae, const std::filesystem::path& folder,
                             c10::ScalarType dtype) {
    core::NamedTensors tensors = module_tensors(vae);
    for (auto& [name, tensor] : tensors) {
        tensor = tensor.to(c10::kCPU, dtype).contiguous();
    }
    std::filesystem::create_directories(folder);
    core::write_tensors(folder / "diffusion_pytorch_model.safetensors", tensors,
                        {{"format", "pt"}});
    core::write_json_file(folder / "config.json", vae.config().to_json());
}

} // namespace tuneframe::models::wan
