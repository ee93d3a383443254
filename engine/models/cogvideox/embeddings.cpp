#include "engine/models/cogvideox/embeddings.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <cfenv>
#include <cmath>

namespace tuneframe::models::cogvideox {
namespace {

using core::Error;
using core::ErrorCode;
using torch::indexing::Slice;

// sin-cos features of positions `pos` (any float dtype) over `embed_dim` channels, float64:
// [sin(pos * omega) | cos(pos * omega)], omega_k = 10000^(-k / (embed_dim / 2)).
at::Tensor sincos_1d(std::int64_t embed_dim, const at::Tensor& pos) {
    at::Tensor omega = torch::arange(embed_dim / 2, torch::TensorOptions().dtype(torch::kFloat64));
    omega = omega / (static_cast<double>(embed_dim) / 2.0);
    omega = 1.0 / torch::pow(10000.0, omega);
    at::Tensor out = torch::outer(pos.reshape(-1).to(torch::kFloat64), omega); // [M, D/2]
    return torch::cat({torch::sin(out), torch::cos(out)}, 1);                  // [M, D]
}

// Rotary cos/sin for positions `pos` (float32) over `dim` channels, each frequency repeated
// for its channel pair: diffusers' get_1d_rotary_pos_embed(use_real=True).
RotaryEmbedding rotary_1d(std::int64_t dim, const at::Tensor& pos) {
    const double theta = 10000.0;
    at::Tensor exponents = torch::arange(0, dim, 2, torch::TensorOptions().dtype(torch::kFloat32))
                               .index({Slice(0, dim / 2)}) /
                           static_cast<double>(dim);
    at::Tensor freqs = 1.0 / torch::pow(theta, exponents); // [dim/2]
    freqs = torch::outer(pos, freqs);                      // [S, dim/2]
    return {freqs.cos().repeat_interleave(2, 1).to(torch::kFloat32),
            freqs.sin().repeat_interleave(2, 1).to(torch::kFloat32)};
}

// [T, gh, gw, dt | dh | dw] flattened to [T*gh*gw, head_dim], tokens in (t, h, w) order.
at::Tensor combine_time_height_width(const at::Tensor& t, const at::Tensor& h,
                                     const at::Tensor& w) {
    const std::int64_t frames = t.size(0);
    const std::int64_t height = h.size(0);
    const std::int64_t width = w.size(0);
    at::Tensor tt = t.index({Slice(), torch::indexing::None, torch::indexing::None})
                        .expand({frames, height, width, t.size(1)});
    at::Tensor hh = h.index({torch::indexing::None, Slice(), torch::indexing::None})
                        .expand({frames, height, width, h.size(1)});
    at::Tensor ww = w.index({torch::indexing::None, torch::indexing::None})
                        .expand({frames, height, width, w.size(1)});
    return torch::cat({tt, hh, ww}, -1).reshape({frames * height * width, -1});
}

RotaryEmbedding rotary_3d(std::int64_t embed_dim, const at::Tensor& grid_t,
                          const at::Tensor& grid_h, const at::Tensor& grid_w) {
    const std::int64_t dim_t = embed_dim / 4;
    const std::int64_t dim_h = embed_dim / 8 * 3;
    const std::int64_t dim_w = embed_dim / 8 * 3;
    RotaryEmbedding t = rotary_1d(dim_t, grid_t);
    RotaryEmbedding h = rotary_1d(dim_h, grid_h);
    RotaryEmbedding w = rotary_1d(dim_w, grid_w);
    return {combine_time_height_width(t.cos, h.cos, w.cos),
            combine_time_height_width(t.sin, h.sin, w.sin)};
}

// Python's round(): ties to even. nearbyint follows the current rounding mode, which is
// round-to-nearest-even unless someone changed it; set it explicitly for this call.
std::int64_t round_half_even(double value) {
    const int previous = std::fegetround();
    std::fesetround(FE_TONEAREST);
    const double rounded = std::nearbyint(value);
    std::fesetround(previous);
    return static_cast<std::int64_t>(rounded);
}

void check_divisible(std::int64_t value, std::int64_t by, const char* what) {
    if (by <= 0 || value % by != 0) {
        throw Error(ErrorCode::BadInput,
                    std::string("the latent ") + what + " (" + std::to_string(value) +
                        ") must be a multiple of the patch size " + std::to_string(by) + ".",
                    "Choose a resolution and frame count the model's patch size divides (the "
                    "CogVideoX 1.5 pipelines pad latent frames to an even count).");
    }
}

} // namespace

at::Tensor get_3d_sincos_pos_embed(std::int64_t embed_dim, std::int64_t grid_width,
                                   std::int64_t grid_height, std::int64_t temporal_size,
                                   double spatial_interpolation_scale,
                                   double temporal_interpolation_scale) {
    const std::int64_t spatial_dim = embed_dim / 4 * 3;
    const std::int64_t temporal_dim = embed_dim / 4;
    const auto float32 = torch::TensorOptions().dtype(torch::kFloat32);
    at::Tensor grid_h = torch::arange(grid_height, float32) / spatial_interpolation_scale;
    at::Tensor grid_w = torch::arange(grid_width, float32) / spatial_interpolation_scale;
    // meshgrid(w, h, indexing="xy"): both [gh, gw]; the first half of the spatial channels
    // encodes the width coordinate.
    at::Tensor w_coords = grid_w.unsqueeze(0).expand({grid_height, grid_width});
    at::Tensor h_coords = grid_h.unsqueeze(1).expand({grid_height, grid_width});
    at::Tensor spatial =
        torch::cat({sincos_1d(spatial_dim / 2, w_coords), sincos_1d(spatial_dim / 2, h_coords)}, 1);
    at::Tensor grid_t = torch::arange(temporal_size, float32) / temporal_interpolation_scale;
    at::Tensor temporal = sincos_1d(temporal_dim, grid_t); // [T, D/4]

    const std::int64_t tokens = grid_height * grid_width;
    spatial = spatial.unsqueeze(0).expand({temporal_size, tokens, spatial_dim});
    temporal = temporal.unsqueeze(1).expand({temporal_size, tokens, temporal_dim});
    return torch::cat({temporal, spatial}, -1); // [T, H*W, D]
}

CogVideoXPatchEmbedImpl::CogVideoXPatchEmbedImpl(const CogVideoXTransformer3DConfig& config)
    : config_(config) {
    const std::int64_t dim = config.inner_dim();
    const std::int64_t p = config.patch_size;
    if (config.patch_size_t) {
        // diffusers builds this Linear with a bias whatever patch_bias says.
        proj_linear = register_module(
            "proj", lora::LoRALinear(config.in_channels * p * p * *config.patch_size_t, dim));
    } else {
        proj_conv = register_module(
            "proj", torch::nn::Conv2d(torch::nn::Conv2dOptions(config.in_channels, dim, p)
                                          .stride(p)
                                          .bias(config.patch_bias)));
    }
    text_proj = register_module("text_proj", lora::LoRALinear(config.text_embed_dim, dim));
    if (config.use_learned_positional_embeddings) {
        // A persistent buffer in diffusers: part of the checkpoint, never trained.
        const std::int64_t patches =
            config.sample_latent_frames() * (config.sample_height / p) * (config.sample_width / p);
        at::Tensor table =
            lora::SkipInitGuard::active()
                ? torch::empty({1, config.max_text_seq_length + patches, dim}, torch::kFloat32)
                : sincos_table(config.max_text_seq_length, config.sample_latent_frames(),
                               config.sample_height, config.sample_width)
                      .to(torch::kFloat32);
        pos_embedding = register_buffer("pos_embedding", table);
    }
}

at::Tensor CogVideoXPatchEmbedImpl::patchify(const at::Tensor& image_embeds) {
    const std::int64_t batch = image_embeds.size(0);
    const std::int64_t frames = image_embeds.size(1);
    const std::int64_t channels = image_embeds.size(2);
    const std::int64_t height = image_embeds.size(3);
    const std::int64_t width = image_embeds.size(4);
    const std::int64_t p = config_.patch_size;
    check_divisible(height, p, "height");
    check_divisible(width, p, "width");
    if (!config_.patch_size_t) {
        at::Tensor x = image_embeds.reshape({-1, channels, height, width});
        x = proj_conv->forward(x); // [B*F, D, h, w]
        x = x.view({batch, frames, x.size(1), x.size(2), x.size(3)});
        return x.flatten(3).transpose(2, 3).flatten(1, 2); // [B, F*h*w, D]
    }
    const std::int64_t pt = *config_.patch_size_t;
    check_divisible(frames, pt, "frame count");
    at::Tensor x = image_embeds.permute({0, 1, 3, 4, 2}); // [B, F, H, W, C]
    x = x.reshape({batch, frames / pt, pt, height / p, p, width / p, p, channels});
    x = x.permute({0, 1, 3, 5, 7, 2, 4, 6}).flatten(4, 7).flatten(1, 3); // [B, N, C*pt*p*p]
    return proj_linear->forward(x);                                      // [B, N, D]
}

at::Tensor CogVideoXPatchEmbedImpl::sincos_table(std::int64_t text_length, std::int64_t frames,
                                                 std::int64_t height, std::int64_t width) const {
    const std::int64_t dim = config_.inner_dim();
    const std::int64_t p = config_.patch_size;
    at::Tensor video = get_3d_sincos_pos_embed(dim, width / p, height / p, frames,
                                               config_.spatial_interpolation_scale,
                                               config_.temporal_interpolation_scale)
                           .flatten(0, 1); // [F*h*w, D]
    at::Tensor text = torch::zeros({text_length, dim}, video.options());
    return torch::cat({text, video}, 0).unsqueeze(0); // [1, L + N, D], float64
}

at::Tensor CogVideoXPatchEmbedImpl::positional_embedding(std::int64_t text_length,
                                                         std::int64_t frames, std::int64_t height,
                                                         std::int64_t width) const {
    if (config_.use_learned_positional_embeddings) {
        if (height != config_.sample_height || width != config_.sample_width) {
            throw Error(ErrorCode::BadInput,
                        "this model's learned positional table covers latents of " +
                            std::to_string(config_.sample_height) + " x " +
                            std::to_string(config_.sample_width) + ", not " +
                            std::to_string(height) + " x " + std::to_string(width) + ".",
                        "CogVideoX-5b-I2V only runs at its native 480 x 720 (latent 60 x 90).");
        }
        // As diffusers: another frame count silently falls back to the sin-cos table.
        const std::int64_t pixel_frames = (frames - 1) * config_.temporal_compression_ratio + 1;
        if (pixel_frames != config_.sample_frames) {
            return sincos_table(text_length, frames, height, width);
        }
        if (text_length != config_.max_text_seq_length) {
            throw Error(ErrorCode::BadInput,
                        "this model's learned positional table has " +
                            std::to_string(config_.max_text_seq_length) +
                            " text rows, but the text has " + std::to_string(text_length) +
                            " tokens.",
                        "Pad or truncate prompts to max_text_seq_length tokens.");
        }
        return pos_embedding;
    }
    if (config_.uses_sincos_positions()) {
        return sincos_table(text_length, frames, height, width);
    }
    return {};
}

at::Tensor CogVideoXPatchEmbedImpl::sincos_table_for(std::int64_t text_length, std::int64_t frames,
                                                     std::int64_t height, std::int64_t width,
                                                     const at::TensorOptions& target) {
    std::vector<std::int64_t> grid{text_length, frames, height, width};
    if (!sincos_cache_ || sincos_cache_->grid != grid || sincos_cache_->device != target.device() ||
        sincos_cache_->dtype != c10::typeMetaToScalarType(target.dtype())) {
        at::Tensor table = sincos_table(text_length, frames, height, width).to(target);
        sincos_cache_ = CachedTable{std::move(grid), target.device(),
                                    c10::typeMetaToScalarType(target.dtype()), std::move(table)};
    }
    return sincos_cache_->table;
}

at::Tensor CogVideoXPatchEmbedImpl::forward(const at::Tensor& text_embeds,
                                            const at::Tensor& image_embeds) {
    at::Tensor text = text_proj->forward(text_embeds);
    at::Tensor embeds = torch::cat({text, patchify(image_embeds)}, 1).contiguous();
    const std::int64_t text_length = text_embeds.size(1);
    const std::int64_t frames = image_embeds.size(1);
    const std::int64_t height = image_embeds.size(3);
    const std::int64_t width = image_embeds.size(4);
    if (config_.uses_sincos_positions() && !config_.use_learned_positional_embeddings) {
        return embeds + sincos_table_for(text_length, frames, height, width, embeds.options());
    }
    at::Tensor table = positional_embedding(text_length, frames, height, width);
    if (table.defined()) {
        embeds = embeds + table.to(embeds.device(), embeds.scalar_type());
    }
    return embeds;
}

CropRegion get_resize_crop_region_for_grid(std::int64_t grid_height, std::int64_t grid_width,
                                           std::int64_t base_width, std::int64_t base_height) {
    const double h = static_cast<double>(grid_height);
    const double w = static_cast<double>(grid_width);
    const double th = static_cast<double>(base_height);
    const double tw = static_cast<double>(base_width);
    std::int64_t resize_height = 0;
    std::int64_t resize_width = 0;
    if (h / w > th / tw) {
        resize_height = base_height;
        resize_width = round_half_even(th / h * w);
    } else {
        resize_width = base_width;
        resize_height = round_half_even(tw / w * h);
    }
    CropRegion crop;
    crop.top = round_half_even(static_cast<double>(base_height - resize_height) / 2.0);
    crop.left = round_half_even(static_cast<double>(base_width - resize_width) / 2.0);
    crop.bottom = crop.top + resize_height;
    crop.right = crop.left + resize_width;
    return crop;
}

RotaryEmbedding get_3d_rotary_pos_embed_linspace(std::int64_t embed_dim, const CropRegion& crop,
                                                 std::int64_t grid_height, std::int64_t grid_width,
                                                 std::int64_t temporal_size) {
    const auto float32 = torch::TensorOptions().dtype(torch::kFloat32);
    // The end points are Python floats (true division of ints) handed to torch.linspace.
    auto end = [](std::int64_t stop, std::int64_t n) {
        return static_cast<double>(stop * (n - 1)) / static_cast<double>(n);
    };
    at::Tensor grid_h = torch::linspace(static_cast<double>(crop.top),
                                        end(crop.bottom, grid_height), grid_height, float32);
    at::Tensor grid_w = torch::linspace(static_cast<double>(crop.left), end(crop.right, grid_width),
                                        grid_width, float32);
    at::Tensor grid_t =
        torch::linspace(0.0, end(temporal_size, temporal_size), temporal_size, float32);
    return rotary_3d(embed_dim, grid_t, grid_h, grid_w);
}

RotaryEmbedding get_3d_rotary_pos_embed_slice(std::int64_t embed_dim, std::int64_t grid_height,
                                              std::int64_t grid_width, std::int64_t temporal_size,
                                              std::int64_t max_height, std::int64_t max_width) {
    if (grid_height > max_height || grid_width > max_width) {
        throw Error(ErrorCode::BadInput,
                    "a patch grid of " + std::to_string(grid_height) + " x " +
                        std::to_string(grid_width) + " exceeds the model's rotary grid of " +
                        std::to_string(max_height) + " x " + std::to_string(max_width) + ".",
                    "Use a smaller resolution, or a config whose sample_height/sample_width "
                    "cover it.");
    }
    const auto float32 = torch::TensorOptions().dtype(torch::kFloat32);
    at::Tensor grid_h = torch::arange(max_height, float32).index({Slice(0, grid_height)});
    at::Tensor grid_w = torch::arange(max_width, float32).index({Slice(0, grid_width)});
    at::Tensor grid_t = torch::arange(temporal_size, float32);
    return rotary_3d(embed_dim, grid_t, grid_h, grid_w);
}

RotaryEmbedding prepare_rotary_positional_embeddings(const CogVideoXTransformer3DConfig& config,
                                                     std::int64_t latent_frames,
                                                     std::int64_t latent_height,
                                                     std::int64_t latent_width) {
    const std::int64_t p = config.patch_size;
    const std::int64_t grid_height = latent_height / p;
    const std::int64_t grid_width = latent_width / p;
    const std::int64_t base_width = config.sample_width / p;
    const std::int64_t base_height = config.sample_height / p;
    if (!config.patch_size_t) {
        const CropRegion crop =
            get_resize_crop_region_for_grid(grid_height, grid_width, base_width, base_height);
        return get_3d_rotary_pos_embed_linspace(config.attention_head_dim, crop, grid_height,
                                                grid_width, latent_frames);
    }
    const std::int64_t pt = *config.patch_size_t;
    return get_3d_rotary_pos_embed_slice(config.attention_head_dim, grid_height, grid_width,
                                         (latent_frames + pt - 1) / pt, base_height, base_width);
}

} // namespace tuneframe::models::cogvideox
