#include "engine/models/wan/vae/autoencoder_kl_wan.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

[[noreturn]] void bad_vae_config(const std::string& origin, const std::string& what) {
    throw Error(ErrorCode::BadInput, origin + ": " + what,
                "Restore config.json from the model's download; Wan VAEs use AutoencoderKLWan's "
                "layout (diffusers 0.40).");
}

std::string text(std::int64_t value) {
    return std::to_string(value);
}

void check_positive(const std::string& origin, const char* field, std::int64_t value) {
    if (value <= 0) {
        bad_vae_config(origin,
                       std::string("\"") + field + "\" must be positive, not " + text(value) + ".");
    }
}

void check_statistics(const AutoencoderKLWanConfig& config, const std::string& origin) {
    for (const auto& [values, field] :
         {std::pair{&config.latents_mean, "latents_mean"}, {&config.latents_std, "latents_std"}}) {
        if (static_cast<std::int64_t>(values->size()) != config.z_dim) {
            bad_vae_config(origin, std::string("\"") + field + "\" has " + text(values->size()) +
                                       " values but z_dim is " + text(config.z_dim) +
                                       "; it needs one per latent channel.");
        }
    }
    if (std::any_of(config.latents_std.begin(), config.latents_std.end(),
                    [](double value) { return !(value > 0); })) {
        bad_vae_config(origin, "every \"latents_std\" value must be positive.");
    }
}

// The Wan 2.2 shortcuts fold (AvgDown3D) or unfold (DupUp3D) whole groups of channels.
void check_residual_shortcuts(const AutoencoderKLWanConfig& config, const std::string& origin) {
    const std::vector<std::int64_t>& mult = config.dim_mult;
    const std::size_t levels = mult.size();
    for (std::size_t i = 0; i < levels; ++i) {
        const bool down = i + 1 < levels;
        const std::int64_t factor = down ? (config.temperal_downsample[i] ? 8 : 4) : 1;
        const std::int64_t in = config.base_dim * (i == 0 ? 1 : mult[i - 1]);
        const std::int64_t out = config.base_dim * mult[i];
        bool fits = (in * factor) % out == 0;
        if (down) {
            // The decoder's level i: from mult[L - i] (mult[L - 1] first) up to mult[L - 1 - i].
            const std::int64_t up_factor = config.temperal_downsample[levels - 2 - i] ? 8 : 4;
            const std::int64_t up_in =
                config.decoder_dim() * mult[i == 0 ? levels - 1 : levels - i];
            const std::int64_t up_out = config.decoder_dim() * mult[levels - 1 - i];
            fits = fits && (up_out * up_factor) % up_in == 0;
        }
        if (!fits) {
            bad_vae_config(origin, "with is_residual, the shortcut of level " + text(i) +
                                       " cannot regroup its channels: \"dim_mult\" must grow by "
                                       "factors that divide the resampling factor (4, or 8 with "
                                       "temporal resampling).");
        }
    }
}

void check_layout(const AutoencoderKLWanConfig& config, const std::string& origin) {
    check_positive(origin, "base_dim", config.base_dim);
    check_positive(origin, "decoder_base_dim", config.decoder_dim());
    check_positive(origin, "z_dim", config.z_dim);
    check_positive(origin, "num_res_blocks", config.num_res_blocks);
    check_positive(origin, "in_channels", config.in_channels);
    check_positive(origin, "out_channels", config.out_channels);
    check_positive(origin, "patch_size", config.patch());
    if (config.dim_mult.empty() || std::any_of(config.dim_mult.begin(), config.dim_mult.end(),
                                               [](std::int64_t m) { return m <= 0; })) {
        bad_vae_config(origin, "\"dim_mult\" must list one positive multiplier per level.");
    }
    if (config.temperal_downsample.size() + 1 != config.dim_mult.size()) {
        bad_vae_config(origin, "\"temperal_downsample\" has " +
                                   text(config.temperal_downsample.size()) + " entries; with " +
                                   text(config.dim_mult.size()) +
                                   " levels in \"dim_mult\" it needs " +
                                   text(config.dim_mult.size() - 1) + ".");
    }
    const std::int64_t cell = config.patch() * config.patch();
    if (config.in_channels % cell != 0 || config.out_channels % cell != 0) {
        bad_vae_config(origin, "\"in_channels\" and \"out_channels\" (" + text(config.in_channels) +
                                   ", " + text(config.out_channels) +
                                   ") must be multiples of patch_size^2 (" + text(cell) + ").");
    }
    if (config.scale_factor_spatial != config.spatial_compression_ratio()) {
        bad_vae_config(origin, "\"scale_factor_spatial\" is " + text(config.scale_factor_spatial) +
                                   " but the blocks and patch_size compress by " +
                                   text(config.spatial_compression_ratio()) + ".");
    }
    if (config.scale_factor_temporal != config.temporal_compression_ratio()) {
        bad_vae_config(origin, "\"scale_factor_temporal\" is " +
                                   text(config.scale_factor_temporal) +
                                   " but \"temperal_downsample\" compresses by " +
                                   text(config.temporal_compression_ratio()) + ".");
    }
    check_statistics(config, origin);
    if (config.is_residual) {
        check_residual_shortcuts(config, origin);
    }
}

} // namespace

AutoencoderKLWanConfig AutoencoderKLWanConfig::from_json(const nlohmann::json& json,
                                                         const std::string& origin) {
    core::JsonFields fields(json, origin);
    if (auto name = fields.maybe<std::string>("_class_name"); name && *name != "AutoencoderKLWan") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": _class_name is \"" + *name + "\", not AutoencoderKLWan.",
                    "Point at the vae/ folder of a Wan 2.1 or Wan 2.2 pipeline.");
    }
    AutoencoderKLWanConfig config;
    config.base_dim = fields.optional<std::int64_t>("base_dim", config.base_dim);
    config.decoder_base_dim = fields.maybe<std::int64_t>("decoder_base_dim");
    config.z_dim = fields.optional<std::int64_t>("z_dim", config.z_dim);
    config.dim_mult = fields.optional<std::vector<std::int64_t>>("dim_mult", config.dim_mult);
    config.num_res_blocks = fields.optional<std::int64_t>("num_res_blocks", config.num_res_blocks);
    config.attn_scales = fields.optional<std::vector<double>>("attn_scales", config.attn_scales);
    config.temperal_downsample =
        fields.optional<std::vector<bool>>("temperal_downsample", config.temperal_downsample);
    config.dropout = fields.optional<double>("dropout", config.dropout);
    config.latents_mean = fields.optional<std::vector<double>>("latents_mean", config.latents_mean);
    config.latents_std = fields.optional<std::vector<double>>("latents_std", config.latents_std);
    config.is_residual = fields.optional<bool>("is_residual", config.is_residual);
    config.in_channels = fields.optional<std::int64_t>("in_channels", config.in_channels);
    config.out_channels = fields.optional<std::int64_t>("out_channels", config.out_channels);
    config.patch_size = fields.maybe<std::int64_t>("patch_size");
    // diffusers allows null scale factors; they are then what the blocks imply.
    config.scale_factor_temporal =
        fields.optional<std::int64_t>("scale_factor_temporal", config.temporal_compression_ratio());
    config.scale_factor_spatial =
        fields.optional<std::int64_t>("scale_factor_spatial", config.spatial_compression_ratio());
    config.clip_output = fields.optional<bool>("clip_output", config.clip_output);
    config.check(origin);
    return config;
}

void AutoencoderKLWanConfig::check(const std::string& origin) const {
    check_layout(*this, origin);
}

nlohmann::json AutoencoderKLWanConfig::to_json() const {
    const auto optional_int = [](const std::optional<std::int64_t>& value) {
        return value ? nlohmann::json(*value) : nlohmann::json();
    };
    nlohmann::json json = {{"_class_name", "AutoencoderKLWan"},
                           {"_diffusers_version", "0.40.0"},
                           {"attn_scales", attn_scales},
                           {"base_dim", base_dim},
                           {"decoder_base_dim", optional_int(decoder_base_dim)},
                           {"dim_mult", dim_mult},
                           {"dropout", dropout},
                           {"in_channels", in_channels},
                           {"is_residual", is_residual},
                           {"latents_mean", latents_mean},
                           {"latents_std", latents_std},
                           {"num_res_blocks", num_res_blocks},
                           {"out_channels", out_channels},
                           {"patch_size", optional_int(patch_size)},
                           {"scale_factor_spatial", scale_factor_spatial},
                           {"scale_factor_temporal", scale_factor_temporal},
                           {"temperal_downsample", temperal_downsample},
                           {"z_dim", z_dim}};
    // diffusers 0.40 has no such field and warns about unknown ones: written only when it
    // changes something.
    if (!clip_output) {
        json["clip_output"] = false;
    }
    return json;
}

std::int64_t AutoencoderKLWanConfig::spatial_compression_ratio() const {
    const auto levels = static_cast<std::int64_t>(dim_mult.size());
    return (std::int64_t{1} << std::max<std::int64_t>(levels - 1, 0)) * patch();
}

std::int64_t AutoencoderKLWanConfig::temporal_compression_ratio() const {
    const auto halvings = std::count(temperal_downsample.begin(), temperal_downsample.end(), true);
    return std::int64_t{1} << halvings;
}

} // namespace tuneframe::models::wan
