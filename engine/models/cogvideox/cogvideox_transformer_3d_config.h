#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace tuneframe::models::cogvideox {

// `transformer/config.json` of CogVideoXTransformer3DModel. Defaults are diffusers' class
// defaults, which is what a key absent from an older config means (cogvideox-spec.md §1.1).
struct CogVideoXTransformer3DConfig {
    std::int64_t num_attention_heads = 30;
    std::int64_t attention_head_dim = 64;
    std::int64_t in_channels = 16;
    std::int64_t out_channels = 16;
    bool flip_sin_to_cos = true;
    std::int64_t freq_shift = 0;
    std::int64_t time_embed_dim = 512;
    std::optional<std::int64_t> ofs_embed_dim;
    std::int64_t text_embed_dim = 4096;
    std::int64_t num_layers = 30;
    double dropout = 0.0;
    bool attention_bias = true;
    std::int64_t sample_width = 90;  // latent pixels (pixels / 8)
    std::int64_t sample_height = 60; // latent pixels
    std::int64_t sample_frames = 49; // pixel frames: 49 is 13 latent frames
    std::int64_t patch_size = 2;
    std::optional<std::int64_t> patch_size_t; // set for CogVideoX 1.5
    std::int64_t temporal_compression_ratio = 4;
    std::int64_t max_text_seq_length = 226;
    std::string activation_fn = "gelu-approximate";
    std::string timestep_activation_fn = "silu";
    bool norm_elementwise_affine = true;
    double norm_eps = 1e-5;
    double spatial_interpolation_scale = 1.875;
    double temporal_interpolation_scale = 1.0;
    bool use_rotary_positional_embeddings = false;
    bool use_learned_positional_embeddings = false;
    bool patch_bias = true;

    // `origin` names the file in error messages ("…/transformer/config.json").
    static CogVideoXTransformer3DConfig from_json(const nlohmann::json& json,
                                                  const std::string& origin);
    static CogVideoXTransformer3DConfig from_file(const std::string& path);
    // Every key, in diffusers' layout, so diffusers can load what init-model writes.
    nlohmann::json to_json() const;

    std::int64_t inner_dim() const { return num_attention_heads * attention_head_dim; }
    // Latent frames the config's sample size stands for.
    std::int64_t sample_latent_frames() const {
        return (sample_frames - 1) / temporal_compression_ratio + 1;
    }
    // Additive 3D sin-cos positions (2b): diffusers uses them whenever rotary is off.
    bool uses_sincos_positions() const { return !use_rotary_positional_embeddings; }
    // Parameters (and the persistent learned position table) the architecture holds, from the
    // config alone: lets `inspect` and the tests quote 1.69 B / 5.57 B without any weights.
    std::int64_t parameter_count() const;
};

} // namespace tuneframe::models::cogvideox
