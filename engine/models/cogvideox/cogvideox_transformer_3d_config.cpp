#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <string>
#include <utility>

namespace tuneframe::models::cogvideox {
namespace {

using core::Error;
using core::ErrorCode;

void require(bool condition, const std::string& origin, const std::string& what) {
    if (!condition) {
        throw Error(ErrorCode::BadInput, origin + ": " + what + ".",
                    "Use the config.json that came with the checkpoint.");
    }
}

// Sizes far past any CogVideoX (2b: 30 heads of 64, 30 layers; 5b: 48 heads, 42 layers): a config
// beyond them is broken, and the module sizes and the memory estimate multiply these.
constexpr std::int64_t kMaxCogVideoXLayers = 4096;
constexpr std::int64_t kMaxCogVideoXHeads = 1024;
constexpr std::int64_t kMaxCogVideoXWidth = 1 << 20;
constexpr std::int64_t kMaxCogVideoXPatch = 64;
constexpr std::int64_t kMaxCogVideoXSampleSide = 4096; // latent pixels
constexpr std::int64_t kMaxCogVideoXSampleFrames = 4097;
constexpr std::int64_t kMaxCogVideoXTextLength = 65536;

void require_cogvideox_size_at_most(std::int64_t value, std::int64_t limit,
                                    const std::string& origin, const char* field) {
    if (value > limit) {
        throw Error(ErrorCode::BadInput,
                    origin + ": " + field + " is " + std::to_string(value) + ", more than " +
                        std::to_string(limit) + " (no CogVideoX model comes near it).",
                    std::string("Use the config.json that came with the checkpoint; its ") + field +
                        " is at most " + std::to_string(limit) + ".");
    }
}

void require_cogvideox_sizes(const CogVideoXTransformer3DConfig& c, const std::string& origin) {
    const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> sizes[] = {
        {"num_layers", {c.num_layers, kMaxCogVideoXLayers}},
        {"num_attention_heads", {c.num_attention_heads, kMaxCogVideoXHeads}},
        {"attention_head_dim", {c.attention_head_dim, kMaxCogVideoXHeads}},
        {"in_channels", {c.in_channels, kMaxCogVideoXWidth}},
        {"out_channels", {c.out_channels, kMaxCogVideoXWidth}},
        {"time_embed_dim", {c.time_embed_dim, kMaxCogVideoXWidth}},
        {"ofs_embed_dim", {c.ofs_embed_dim.value_or(0), kMaxCogVideoXWidth}},
        {"text_embed_dim", {c.text_embed_dim, kMaxCogVideoXWidth}},
        {"sample_width", {c.sample_width, kMaxCogVideoXSampleSide}},
        {"sample_height", {c.sample_height, kMaxCogVideoXSampleSide}},
        {"sample_frames", {c.sample_frames, kMaxCogVideoXSampleFrames}},
        {"patch_size", {c.patch_size, kMaxCogVideoXPatch}},
        {"patch_size_t", {c.patch_size_t.value_or(1), kMaxCogVideoXPatch}},
        {"temporal_compression_ratio", {c.temporal_compression_ratio, kMaxCogVideoXPatch}},
        {"max_text_seq_length", {c.max_text_seq_length, kMaxCogVideoXTextLength}},
    };
    for (const auto& [field, size] : sizes) {
        require_cogvideox_size_at_most(size.first, size.second, origin, field);
    }
}

void validate(const CogVideoXTransformer3DConfig& c, const std::string& origin) {
    require_cogvideox_sizes(c, origin);
    require(c.num_attention_heads > 0 && c.attention_head_dim > 0 && c.num_layers >= 0, origin,
            "num_attention_heads, attention_head_dim and num_layers must be positive");
    require(c.in_channels > 0 && c.out_channels > 0 && c.text_embed_dim > 0 &&
                c.time_embed_dim > 0 && c.patch_size > 0,
            origin, "channel counts, embedding widths and patch_size must be positive");
    require(!c.patch_size_t || *c.patch_size_t > 0, origin, "patch_size_t must be positive");
    require(!c.ofs_embed_dim || *c.ofs_embed_dim == c.time_embed_dim, origin,
            "ofs_embed_dim must equal time_embed_dim (the two embeddings are added)");
    require(c.temporal_compression_ratio > 0 && c.sample_frames > 0, origin,
            "temporal_compression_ratio and sample_frames must be positive");
    // Rotary splits head_dim into t/h/w parts of head_dim/4 and 3*head_dim/8 channel pairs;
    // sin-cos splits the width the same way: both need multiples of 16.
    if (c.use_rotary_positional_embeddings) {
        require(c.attention_head_dim % 16 == 0, origin,
                "attention_head_dim must be a multiple of 16 for rotary embeddings");
    }
    if (c.uses_sincos_positions() || c.use_learned_positional_embeddings) {
        require(c.inner_dim() % 16 == 0, origin,
                "num_attention_heads * attention_head_dim must be a multiple of 16 for the 3D "
                "sin-cos positions");
    }
    if (c.activation_fn != "gelu-approximate") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": activation_fn \"" + c.activation_fn +
                        "\" is not supported; CogVideoX uses \"gelu-approximate\".",
                    "Use the config.json that came with the checkpoint.");
    }
    if (c.timestep_activation_fn != "silu") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": timestep_activation_fn \"" + c.timestep_activation_fn +
                        "\" is not supported; CogVideoX uses \"silu\".",
                    "Use the config.json that came with the checkpoint.");
    }
}

} // namespace

CogVideoXTransformer3DConfig CogVideoXTransformer3DConfig::from_json(const nlohmann::json& json,
                                                                     const std::string& origin) {
    const core::JsonFields f(json, origin);
    const std::string class_name = f.optional<std::string>("_class_name", "");
    if (!class_name.empty() && class_name != "CogVideoXTransformer3DModel") {
        throw Error(ErrorCode::BadInput,
                    origin + " describes a " + class_name + ", not a CogVideoXTransformer3DModel.",
                    "Point --model at the transformer/ folder of a CogVideoX checkpoint.");
    }
    CogVideoXTransformer3DConfig c;
    c.num_attention_heads = f.optional("num_attention_heads", c.num_attention_heads);
    c.attention_head_dim = f.optional("attention_head_dim", c.attention_head_dim);
    c.in_channels = f.optional("in_channels", c.in_channels);
    // diffusers' class default for out_channels is 16 whatever in_channels is.
    c.out_channels = f.optional("out_channels", c.out_channels);
    c.flip_sin_to_cos = f.optional("flip_sin_to_cos", c.flip_sin_to_cos);
    c.freq_shift = f.optional("freq_shift", c.freq_shift);
    c.time_embed_dim = f.optional("time_embed_dim", c.time_embed_dim);
    c.ofs_embed_dim = f.maybe<std::int64_t>("ofs_embed_dim");
    c.text_embed_dim = f.optional("text_embed_dim", c.text_embed_dim);
    c.num_layers = f.optional("num_layers", c.num_layers);
    c.dropout = f.optional("dropout", c.dropout);
    c.attention_bias = f.optional("attention_bias", c.attention_bias);
    c.sample_width = f.optional("sample_width", c.sample_width);
    c.sample_height = f.optional("sample_height", c.sample_height);
    c.sample_frames = f.optional("sample_frames", c.sample_frames);
    c.patch_size = f.optional("patch_size", c.patch_size);
    c.patch_size_t = f.maybe<std::int64_t>("patch_size_t");
    c.temporal_compression_ratio =
        f.optional("temporal_compression_ratio", c.temporal_compression_ratio);
    c.max_text_seq_length = f.optional("max_text_seq_length", c.max_text_seq_length);
    c.activation_fn = f.optional("activation_fn", c.activation_fn);
    c.timestep_activation_fn = f.optional("timestep_activation_fn", c.timestep_activation_fn);
    c.norm_elementwise_affine = f.optional("norm_elementwise_affine", c.norm_elementwise_affine);
    c.norm_eps = f.optional("norm_eps", c.norm_eps);
    c.spatial_interpolation_scale =
        f.optional("spatial_interpolation_scale", c.spatial_interpolation_scale);
    c.temporal_interpolation_scale =
        f.optional("temporal_interpolation_scale", c.temporal_interpolation_scale);
    c.use_rotary_positional_embeddings =
        f.optional("use_rotary_positional_embeddings", c.use_rotary_positional_embeddings);
    c.use_learned_positional_embeddings =
        f.optional("use_learned_positional_embeddings", c.use_learned_positional_embeddings);
    c.patch_bias = f.optional("patch_bias", c.patch_bias);
    validate(c, origin);
    return c;
}

CogVideoXTransformer3DConfig CogVideoXTransformer3DConfig::from_file(const std::string& path) {
    return from_json(core::read_json_file(path), path);
}

nlohmann::json CogVideoXTransformer3DConfig::to_json() const {
    auto optional_int = [](const std::optional<std::int64_t>& value) {
        return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    return {
        {"_class_name", "CogVideoXTransformer3DModel"},
        {"_diffusers_version", "0.32.2"},
        {"activation_fn", activation_fn},
        {"attention_bias", attention_bias},
        {"attention_head_dim", attention_head_dim},
        {"dropout", dropout},
        {"flip_sin_to_cos", flip_sin_to_cos},
        {"freq_shift", freq_shift},
        {"in_channels", in_channels},
        {"max_text_seq_length", max_text_seq_length},
        {"norm_elementwise_affine", norm_elementwise_affine},
        {"norm_eps", norm_eps},
        {"num_attention_heads", num_attention_heads},
        {"num_layers", num_layers},
        {"ofs_embed_dim", optional_int(ofs_embed_dim)},
        {"out_channels", out_channels},
        {"patch_bias", patch_bias},
        {"patch_size", patch_size},
        {"patch_size_t", optional_int(patch_size_t)},
        {"sample_frames", sample_frames},
        {"sample_height", sample_height},
        {"sample_width", sample_width},
        {"spatial_interpolation_scale", spatial_interpolation_scale},
        {"temporal_compression_ratio", temporal_compression_ratio},
        {"temporal_interpolation_scale", temporal_interpolation_scale},
        {"text_embed_dim", text_embed_dim},
        {"time_embed_dim", time_embed_dim},
        {"timestep_activation_fn", timestep_activation_fn},
        {"use_learned_positional_embeddings", use_learned_positional_embeddings},
        {"use_rotary_positional_embeddings", use_rotary_positional_embeddings},
    };
}

std::int64_t CogVideoXTransformer3DConfig::parameter_count() const {
    const std::int64_t d = inner_dim();
    const std::int64_t e = time_embed_dim;
    const std::int64_t layer_norm = norm_elementwise_affine ? 2 * d : 0;
    auto linear = [](std::int64_t in, std::int64_t out, bool bias) {
        return in * out + (bias ? out : 0);
    };
    const std::int64_t patch = patch_size * patch_size * patch_size_t.value_or(1);

    // patch_embed: the 1.5 projection is a Linear that always has a bias (§1.1).
    std::int64_t count = linear(in_channels * patch, d, patch_size_t ? true : patch_bias);
    count += linear(text_embed_dim, d, true);
    if (use_learned_positional_embeddings) {
        const std::int64_t patches =
            sample_latent_frames() * (sample_height / patch_size) * (sample_width / patch_size);
        count += (max_text_seq_length + patches) * d;
    }
    count += linear(d, e, true) + linear(e, e, true); // time_embedding
    if (ofs_embed_dim) {
        count += linear(*ofs_embed_dim, *ofs_embed_dim, true) * 2;
    }
    const std::int64_t block = 2 * (linear(e, 6 * d, true) + layer_norm) // norm1, norm2
                               + 3 * linear(d, d, attention_bias)        // to_q, to_k, to_v
                               + 2 * 2 * attention_head_dim              // norm_q, norm_k
                               + linear(d, d, true)                      // to_out.0
                               + linear(d, 4 * d, true) + linear(4 * d, d, true); // ff
    count += num_layers * block;
    count += layer_norm;                            // norm_final
    count += linear(e, 2 * d, true) + layer_norm;   // norm_out
    count += linear(d, patch * out_channels, true); // proj_out
    return count;
}

} // namespace tuneframe::models::cogvideox
