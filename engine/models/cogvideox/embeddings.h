#pragma once

#include "engine/lora/lora_linear.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"
#include "engine/models/layers/timestep_embedding.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <optional>
#include <vector>

// Ports of diffusers' models/embeddings.py pieces CogVideoX uses, and of the pipeline's
// rotary-table preparation (pipeline_cogvideox.py), which callers need without a pipeline.
namespace tuneframe::models::cogvideox {

// 3D sin-cos positions [T, H*W, D] in float64 (diffusers' get_3d_sincos_pos_embed): the first
// D/4 channels encode the frame, the rest the spatial position with the WIDTH coordinate first.
// Positions are divided by the interpolation scales in float32, as diffusers does, before the
// float64 products.
at::Tensor get_3d_sincos_pos_embed(std::int64_t embed_dim, std::int64_t grid_width,
                                   std::int64_t grid_height, std::int64_t temporal_size,
                                   double spatial_interpolation_scale,
                                   double temporal_interpolation_scale);

// CogVideoXPatchEmbed: projects text and video patches to the transformer width, concatenates
// them (text first) and adds the positional table where the model has one.
class CogVideoXPatchEmbedImpl : public torch::nn::Module {
public:
    explicit CogVideoXPatchEmbedImpl(const CogVideoXTransformer3DConfig& config);

    // text_embeds [B, L, text_embed_dim], image_embeds [B, F, C, H, W] -> [B, L + N, D]
    at::Tensor forward(const at::Tensor& text_embeds, const at::Tensor& image_embeds);

    // The additive table for L text tokens and a latent video of F x H x W, float64 (sin-cos)
    // or the checkpoint's dtype (learned); undefined when the model adds none.
    at::Tensor positional_embedding(std::int64_t text_length, std::int64_t frames,
                                    std::int64_t height, std::int64_t width) const;

    torch::nn::Conv2d proj_conv{nullptr};  // "proj" for CogVideoX 1.0
    lora::LoRALinear proj_linear{nullptr}; // "proj" for CogVideoX 1.5 (temporal patches)
    lora::LoRALinear text_proj{nullptr};
    at::Tensor pos_embedding; // [1, L + N, D], registered only for learned tables (5b-I2V)

private:
    at::Tensor patchify(const at::Tensor& image_embeds);
    at::Tensor sincos_table(std::int64_t text_length, std::int64_t frames, std::int64_t height,
                            std::int64_t width) const;
    // The sin-cos table on the embeddings' device and dtype, built (in float64, as the
    // reference) only when the token grid, device or dtype changes, not every step.
    at::Tensor sincos_table_for(std::int64_t text_length, std::int64_t frames, std::int64_t height,
                                std::int64_t width, const at::TensorOptions& target);

    CogVideoXTransformer3DConfig config_;
    struct CachedTable {
        std::vector<std::int64_t> grid;
        c10::Device device{c10::kCPU};
        c10::ScalarType dtype = c10::ScalarType::Float;
        at::Tensor table;
    };
    std::optional<CachedTable> sincos_cache_;
};
TORCH_MODULE(CogVideoXPatchEmbed);

// Per-token rotary tables for the video tokens: cos and sin [T*h*w, head_dim], float32.
struct RotaryEmbedding {
    at::Tensor cos;
    at::Tensor sin;
};

// The region a (grid_height x grid_width) grid covers once resized to fit a base grid and
// centred (diffusers' get_resize_crop_region_for_grid), with Python's round-half-to-even.
struct CropRegion {
    std::int64_t top = 0;
    std::int64_t left = 0;
    std::int64_t bottom = 0;
    std::int64_t right = 0;
};
CropRegion get_resize_crop_region_for_grid(std::int64_t grid_height, std::int64_t grid_width,
                                           std::int64_t base_width, std::int64_t base_height);

// diffusers' get_3d_rotary_pos_embed with grid_type "linspace" (CogVideoX 1.0): positions
// linspace(start, stop * (n - 1) / n, n) over the crop region.
RotaryEmbedding get_3d_rotary_pos_embed_linspace(std::int64_t embed_dim, const CropRegion& crop,
                                                 std::int64_t grid_height, std::int64_t grid_width,
                                                 std::int64_t temporal_size);
// grid_type "slice" (CogVideoX 1.5): integer positions, prefixes of a max_height x max_width grid.
RotaryEmbedding get_3d_rotary_pos_embed_slice(std::int64_t embed_dim, std::int64_t grid_height,
                                              std::int64_t grid_width, std::int64_t temporal_size,
                                              std::int64_t max_height, std::int64_t max_width);

// The tables the CogVideoX pipelines (and trainers) compute for latents of F x H x W:
// `_prepare_rotary_positional_embeddings`, in latent units.
RotaryEmbedding prepare_rotary_positional_embeddings(const CogVideoXTransformer3DConfig& config,
                                                     std::int64_t latent_frames,
                                                     std::int64_t latent_height,
                                                     std::int64_t latent_width);

} // namespace tuneframe::models::cogvideox
