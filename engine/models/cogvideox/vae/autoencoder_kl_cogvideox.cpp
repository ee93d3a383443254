#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include "engine/models/vae_tiles.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models {
namespace {

using core::Error;
using core::ErrorCode;
using models::TileGrid;

[[noreturn]] void bad_config(const std::string& origin, const std::string& what) {
    throw Error(ErrorCode::BadInput, origin + ": " + what,
                "Restore config.json from the model's download; CogVideoX VAEs use "
                "AutoencoderKLCogVideoX's layout.");
}

void check_block_types(const std::vector<std::string>& types, const char* expected,
                       std::size_t count, const std::string& origin, const char* field) {
    if (types.size() != count) {
        bad_config(origin, std::string("\"") + field + "\" has " + std::to_string(types.size()) +
                               " entries but block_out_channels has " + std::to_string(count) +
                               ".");
    }
    for (const std::string& type : types) {
        if (type != expected) {
            throw Error(ErrorCode::Unsupported,
                        origin + ": block type \"" + type + "\" in \"" + field +
                            "\" is not supported; only " + expected + " is.",
                        "Point at the vae/ folder of a CogVideoX pipeline.");
        }
    }
}

void check_video_like(const at::Tensor& tensor, std::int64_t channels, const char* what) {
    if (tensor.dim() != 5 || tensor.size(1) != channels || !tensor.is_floating_point() ||
        tensor.numel() == 0) {
        throw Error(ErrorCode::BadInput,
                    std::string(what) + " must be a float [batch, " + std::to_string(channels) +
                        ", frames, height, width] tensor, not " +
                        c10::toString(tensor.scalar_type()) + " " + c10::str(tensor.sizes()) + ".",
                    "The VAE works on [B, C, F, H, W]; videos in [-1, 1].");
    }
}

} // namespace

AutoencoderKLCogVideoXConfig AutoencoderKLCogVideoXConfig::from_json(const nlohmann::json& json,
                                                                     const std::string& origin) {
    core::JsonFields fields(json, origin);
    if (auto name = fields.maybe<std::string>("_class_name");
        name && *name != "AutoencoderKLCogVideoX") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": _class_name is \"" + *name + "\", not AutoencoderKLCogVideoX.",
                    "Point at the vae/ folder of a CogVideoX pipeline.");
    }
    AutoencoderKLCogVideoXConfig config;
    config.in_channels = fields.optional<std::int64_t>("in_channels", config.in_channels);
    config.out_channels = fields.optional<std::int64_t>("out_channels", config.out_channels);
    config.latent_channels =
        fields.optional<std::int64_t>("latent_channels", config.latent_channels);
    config.block_out_channels =
        fields.optional<std::vector<std::int64_t>>("block_out_channels", config.block_out_channels);
    config.layers_per_block =
        fields.optional<std::int64_t>("layers_per_block", config.layers_per_block);
    config.norm_eps = fields.optional<double>("norm_eps", config.norm_eps);
    config.norm_num_groups =
        fields.optional<std::int64_t>("norm_num_groups", config.norm_num_groups);
    const double ratio = fields.optional<double>("temporal_compression_ratio", 4.0);
    config.sample_height = fields.optional<std::int64_t>("sample_height", config.sample_height);
    config.sample_width = fields.optional<std::int64_t>("sample_width", config.sample_width);
    config.scaling_factor = fields.optional<double>("scaling_factor", config.scaling_factor);
    config.shift_factor = fields.maybe<double>("shift_factor");
    config.invert_scale_latents = fields.optional<bool>("invert_scale_latents", false);
    config.force_upcast = fields.optional<bool>("force_upcast", true);

    const std::size_t blocks = config.block_out_channels.size();
    if (blocks == 0) {
        bad_config(origin, "\"block_out_channels\" is empty.");
    }
    check_block_types(
        fields.optional<std::vector<std::string>>(
            "down_block_types", std::vector<std::string>(blocks, "CogVideoXDownBlock3D")),
        "CogVideoXDownBlock3D", blocks, origin, "down_block_types");
    check_block_types(fields.optional<std::vector<std::string>>(
                          "up_block_types", std::vector<std::string>(blocks, "CogVideoXUpBlock3D")),
                      "CogVideoXUpBlock3D", blocks, origin, "up_block_types");
    const std::string act = fields.optional<std::string>("act_fn", "silu");
    if (act != "silu" && act != "swish") {
        throw Error(ErrorCode::Unsupported, origin + ": act_fn \"" + act + "\" is not supported.",
                    "CogVideoX VAEs use silu.");
    }
    if (fields.optional<bool>("use_quant_conv", false) ||
        fields.optional<bool>("use_post_quant_conv", false)) {
        throw Error(ErrorCode::Unsupported,
                    origin + ": quant_conv layers are not supported (no CogVideoX VAE has them).",
                    "Set use_quant_conv and use_post_quant_conv to false.");
    }
    config.temporal_compression_ratio = static_cast<std::int64_t>(ratio);
    const std::int64_t level = static_cast<std::int64_t>(std::log2(ratio));
    if (ratio < 1 || static_cast<double>(std::int64_t{1} << level) != ratio) {
        bad_config(origin, "\"temporal_compression_ratio\" must be a power of two.");
    }
    for (std::int64_t channels : config.block_out_channels) {
        if (channels <= 0 || config.norm_num_groups <= 0 || channels % config.norm_num_groups) {
            bad_config(origin, "every block_out_channels entry must be a positive multiple of "
                               "norm_num_groups (" +
                                   std::to_string(config.norm_num_groups) + ").");
        }
    }
    if (config.in_channels <= 0 || config.out_channels <= 0 || config.latent_channels <= 0 ||
        config.layers_per_block <= 0) {
        bad_config(origin, "channel and layer counts must be positive.");
    }
    return config;
}

nlohmann::json AutoencoderKLCogVideoXConfig::to_json() const {
    const auto blocks = block_out_channels.size();
    return {{"_class_name", "AutoencoderKLCogVideoX"},
            {"_diffusers_version", "0.32.2"},
            {"act_fn", "silu"},
            {"block_out_channels", block_out_channels},
            {"down_block_types", std::vector<std::string>(blocks, "CogVideoXDownBlock3D")},
            {"force_upcast", force_upcast},
            {"in_channels", in_channels},
            {"invert_scale_latents", invert_scale_latents},
            {"latent_channels", latent_channels},
            {"latents_mean", nullptr},
            {"latents_std", nullptr},
            {"layers_per_block", layers_per_block},
            {"norm_eps", norm_eps},
            {"norm_num_groups", norm_num_groups},
            {"out_channels", out_channels},
            {"sample_height", sample_height},
            {"sample_width", sample_width},
            {"scaling_factor", scaling_factor},
            {"shift_factor", shift_factor ? nlohmann::json(*shift_factor) : nlohmann::json()},
            {"temporal_compression_ratio", temporal_compression_ratio},
            {"up_block_types", std::vector<std::string>(blocks, "CogVideoXUpBlock3D")},
            {"use_post_quant_conv", false},
            {"use_quant_conv", false}};
}

std::int64_t AutoencoderKLCogVideoXConfig::spatial_compression_ratio() const {
    return std::int64_t{1} << (block_out_channels.size() - 1);
}

std::vector<std::pair<std::int64_t, std::int64_t>> vae_frame_batches(std::int64_t frames,
                                                                     std::int64_t batch_size) {
    std::vector<std::pair<std::int64_t, std::int64_t>> batches;
    const std::int64_t count = std::max<std::int64_t>(frames / batch_size, 1);
    const std::int64_t remainder = frames % batch_size;
    for (std::int64_t i = 0; i < count; ++i) {
        const std::int64_t begin = batch_size * i + (i == 0 ? 0 : remainder);
        const std::int64_t end = std::min(batch_size * (i + 1) + remainder, frames);
        batches.emplace_back(begin, end);
    }
    return batches;
}

AutoencoderKLCogVideoXImpl::AutoencoderKLCogVideoXImpl(const AutoencoderKLCogVideoXConfig& config,
                                                       const WeightsPlacement& placement)
    : config_(config)
    , placement_(placement) {
    check_placement(placement);
    vae::CoderShape shape;
    shape.in_channels = config.in_channels;
    shape.out_channels = config.latent_channels;
    shape.block_out_channels = config.block_out_channels;
    shape.layers_per_block = config.layers_per_block;
    shape.norm_num_groups = config.norm_num_groups;
    shape.norm_eps = config.norm_eps;
    shape.temporal_compress_level = static_cast<std::int64_t>(
        std::log2(static_cast<double>(config.temporal_compression_ratio)));
    encoder_ = register_module("encoder", vae::CogVideoXEncoder3D(shape, placement.options()));
    shape.in_channels = config.latent_channels;
    shape.out_channels = config.out_channels;
    decoder_ = register_module("decoder", vae::CogVideoXDecoder3D(shape, placement.options()));
}

void AutoencoderKLCogVideoXImpl::enable_tiling(const VaeTilingOptions& options) {
    const std::int64_t ratio = config_.spatial_compression_ratio();
    VaeTiling tiling;
    tiling.sample_height = options.tile_sample_min_height > 0 ? options.tile_sample_min_height
                                                              : config_.sample_height / 2;
    tiling.sample_width = options.tile_sample_min_width > 0 ? options.tile_sample_min_width
                                                            : config_.sample_width / 2;
    tiling.latent_height = tiling.sample_height / ratio;
    tiling.latent_width = tiling.sample_width / ratio;
    tiling.overlap_factor_height =
        options.tile_overlap_factor_height > 0 ? options.tile_overlap_factor_height : 1.0 / 6.0;
    tiling.overlap_factor_width =
        options.tile_overlap_factor_width > 0 ? options.tile_overlap_factor_width : 1.0 / 5.0;
    // diffusers steps through tiles by one rounding of the overlap and keeps a part of each
    // tile by another; where the two disagree it returns a video or latent of the wrong size.
    // Such geometries (the defaults and the golden ones agree) are refused here.
    const auto part = [](std::int64_t size, double factor) {
        return static_cast<std::int64_t>(static_cast<double>(size) * factor);
    };
    auto consistent = [&](std::int64_t sample, std::int64_t latent, double factor) {
        const std::int64_t latent_stride = part(latent, 1 - factor);
        const std::int64_t sample_stride = part(sample, 1 - factor);
        return factor < 1 && latent_stride >= 1 &&
               latent_stride * ratio == sample - part(sample, factor) &&
               sample_stride == (latent - part(latent, factor)) * ratio;
    };
    if (!consistent(tiling.sample_height, tiling.latent_height, tiling.overlap_factor_height) ||
        !consistent(tiling.sample_width, tiling.latent_width, tiling.overlap_factor_width)) {
        throw Error(ErrorCode::BadInput,
                    "VAE tiles of " + std::to_string(tiling.sample_height) + "x" +
                        std::to_string(tiling.sample_width) + " pixels with overlap factors " +
                        std::to_string(tiling.overlap_factor_height) + " and " +
                        std::to_string(tiling.overlap_factor_width) +
                        " do not fit together: the tile stride and the part of each tile kept "
                        "differ, so the result would have the wrong size.",
                    "Use the defaults (half the config's sample size, overlaps 1/6 and 1/5), or "
                    "sizes where size x overlap is a multiple of " +
                        std::to_string(ratio) + " pixels, e.g. 240x360 or 48x40.");
    }
    tiling_ = tiling;
}

DiagonalGaussianDistribution AutoencoderKLCogVideoXImpl::encode(const at::Tensor& video) const {
    check_video_like(video, config_.in_channels, "video");
    torch::NoGradGuard no_grad;
    const at::Tensor x = video.to(placement_.device, placement_.dtype);
    if (!slicing_ || x.size(0) == 1) {
        return DiagonalGaussianDistribution(encode_moments(x));
    }
    std::vector<at::Tensor> slices;
    for (const at::Tensor& slice : x.split(1)) {
        slices.push_back(encode_moments(slice));
    }
    return DiagonalGaussianDistribution(at::cat(slices));
}

at::Tensor AutoencoderKLCogVideoXImpl::decode(const at::Tensor& latent) const {
    check_video_like(latent, config_.latent_channels, "latent");
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

at::Tensor AutoencoderKLCogVideoXImpl::encode_moments(const at::Tensor& video) const {
    if (tiling_ &&
        (video.size(4) > tiling_->sample_width || video.size(3) > tiling_->sample_height)) {
        return tiled_encode(video);
    }
    return encode_frames(video);
}

at::Tensor AutoencoderKLCogVideoXImpl::decode_latents(const at::Tensor& latent) const {
    if (tiling_ &&
        (latent.size(4) > tiling_->latent_width || latent.size(3) > tiling_->latent_height)) {
        return tiled_decode(latent);
    }
    return decode_frames(latent);
}

at::Tensor AutoencoderKLCogVideoXImpl::encode_frames(const at::Tensor& video) const {
    vae::ConvCache cache;
    std::vector<at::Tensor> parts;
    for (const auto& [begin, end] : vae_frame_batches(video.size(2), kSampleFramesBatchSize)) {
        parts.push_back(encoder_->forward(video.slice(2, begin, end), cache));
    }
    return at::cat(parts, 2);
}

at::Tensor AutoencoderKLCogVideoXImpl::decode_frames(const at::Tensor& latent) const {
    vae::ConvCache cache;
    std::vector<at::Tensor> parts;
    for (const auto& [begin, end] : vae_frame_batches(latent.size(2), kLatentFramesBatchSize)) {
        parts.push_back(decoder_->forward(latent.slice(2, begin, end), cache));
    }
    return at::cat(parts, 2);
}

at::Tensor AutoencoderKLCogVideoXImpl::tiled_encode(const at::Tensor& video) const {
    const VaeTiling& tiling = *tiling_;
    const double factor_height = tiling.overlap_factor_height;
    const double factor_width = tiling.overlap_factor_width;
    const auto stride_height =
        static_cast<std::int64_t>(tiling.sample_height * (1 - factor_height));
    const auto stride_width = static_cast<std::int64_t>(tiling.sample_width * (1 - factor_width));
    const auto blend_height = static_cast<std::int64_t>(tiling.latent_height * factor_height);
    const auto blend_width = static_cast<std::int64_t>(tiling.latent_width * factor_width);
    TileGrid rows =
        code_tiles(video, tiling.sample_height, tiling.sample_width, stride_height, stride_width,
                   [this](const at::Tensor& tile) { return encode_frames(tile); });
    return join_tiles(rows, blend_height, blend_width, tiling.latent_height - blend_height,
                      tiling.latent_width - blend_width);
}

at::Tensor AutoencoderKLCogVideoXImpl::tiled_decode(const at::Tensor& latent) const {
    const VaeTiling& tiling = *tiling_;
    const double factor_height = tiling.overlap_factor_height;
    const double factor_width = tiling.overlap_factor_width;
    const auto stride_height =
        static_cast<std::int64_t>(tiling.latent_height * (1 - factor_height));
    const auto stride_width = static_cast<std::int64_t>(tiling.latent_width * (1 - factor_width));
    const auto blend_height = static_cast<std::int64_t>(tiling.sample_height * factor_height);
    const auto blend_width = static_cast<std::int64_t>(tiling.sample_width * factor_width);
    TileGrid rows =
        code_tiles(latent, tiling.latent_height, tiling.latent_width, stride_height, stride_width,
                   [this](const at::Tensor& tile) { return decode_frames(tile); });
    return join_tiles(rows, blend_height, blend_width, tiling.sample_height - blend_height,
                      tiling.sample_width - blend_width);
}

AutoencoderKLCogVideoX load_autoencoder_kl_cogvideox(const std::filesystem::path& folder,
                                                     const WeightsPlacement& placement) {
    const auto config_path = folder / "config.json";
    const auto config = AutoencoderKLCogVideoXConfig::from_json(core::read_json_file(config_path),
                                                                config_path.string());
    AutoencoderKLCogVideoX model(config, placement);
    load_module_weights(*model, core::SafetensorsCheckpoint(folder));
    return model;
}

} // namespace tuneframe::models
