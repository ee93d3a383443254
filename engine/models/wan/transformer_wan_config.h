#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// `transformer/config.json` of WanTransformer3DModel. Defaults are diffusers' class defaults,
// which is what a key absent from a config means.
struct WanTransformer3DConfig {
    std::array<std::int64_t, 3> patch_size = {1, 2, 2}; // frames, height, width
    std::int64_t num_attention_heads = 40;
    std::int64_t attention_head_dim = 128;
    std::int64_t in_channels = 16;
    std::int64_t out_channels = 16;
    std::int64_t text_dim = 4096;
    std::int64_t freq_dim = 256;
    std::int64_t ffn_dim = 13824;
    std::int64_t num_layers = 40;
    bool cross_attn_norm = true;
    // Kept for config.json: diffusers builds the RMSNorm across heads whatever it says.
    std::optional<std::string> qk_norm = "rms_norm_across_heads";
    double eps = 1e-6;
    std::optional<std::int64_t> image_dim;         // Wan 2.1 I2V: the CLIP width (1280)
    std::optional<std::int64_t> added_kv_proj_dim; // Wan 2.1 I2V: the image K/V input width
    std::int64_t rope_max_seq_len = 1024;
    std::optional<std::int64_t> pos_embed_seq_len; // Wan 2.1 FLF2V: two images' CLIP tokens

    // `origin` names the file in error messages ("…/transformer/config.json").
    static WanTransformer3DConfig from_json(const nlohmann::json& json, const std::string& origin);
    static WanTransformer3DConfig from_file(const std::string& path);
    // Every key, in diffusers' layout, so diffusers loads what we write.
    nlohmann::json to_json() const;

    std::int64_t inner_dim() const { return num_attention_heads * attention_head_dim; }
    std::int64_t patch_volume() const { return patch_size[0] * patch_size[1] * patch_size[2]; }
    // Whether cross-attention also attends to CLIP image tokens (Wan 2.1 I2V / FLF2V).
    bool has_image_attention() const { return added_kv_proj_dim.has_value(); }
    // The model's parameters, counted from the config (a 14B model is never built to count).
    std::int64_t parameter_count() const;
};

// The released Wan transformers by name, as their diffusers config.json files describe them.
struct WanTransformerPreset {
    std::string name;        // "wan2.1-t2v-1.3b"
    std::string description; // "Wan 2.1 text-to-video 1.3B"
    WanTransformer3DConfig config;
};

// wan2.1-t2v-1.3b, wan2.1-t2v-14b, wan2.1-i2v-14b, wan2.1-flf2v-14b, wan2.2-t2v-a14b,
// wan2.2-i2v-a14b, wan2.2-ti2v-5b.
const std::vector<WanTransformerPreset>& wan_transformer_presets();
// Throws a Usage error listing the known names.
const WanTransformerPreset& find_wan_transformer_preset(const std::string& name);
// The first preset whose config builds the same model as `config`, or nullptr (a custom shape,
// such as the golden test models). Both A14B experts share the 14B shapes, so they come back
// under the Wan 2.1 names.
const WanTransformerPreset* recognise_wan_transformer(const WanTransformer3DConfig& config);

} // namespace tuneframe::models::wan
