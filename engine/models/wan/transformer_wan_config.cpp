#include "engine/models/wan/transformer_wan_config.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <string>
#include <utility>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

void require_field(bool condition, const std::string& origin, const std::string& what) {
    if (!condition) {
        throw Error(ErrorCode::BadInput, origin + ": " + what + ".",
                    "Use the config.json that came with the checkpoint.");
    }
}

std::array<std::int64_t, 3> read_patch_size(const nlohmann::json& json, const std::string& origin) {
    std::array<std::int64_t, 3> patch = WanTransformer3DConfig().patch_size;
    const auto it = json.find("patch_size");
    if (it == json.end() || it->is_null()) {
        return patch;
    }
    require_field(it->is_array() && it->size() == 3, origin,
                  "patch_size must be three integers (frames, height, width)");
    for (std::size_t i = 0; i < 3; ++i) {
        require_field((*it)[i].is_number_integer(), origin,
                      "patch_size must be three integers (frames, height, width)");
        patch[i] = (*it)[i].get<std::int64_t>();
    }
    return patch;
}

// Sizes far past any Wan (14B: 40 heads of 128, 40 layers, ffn_dim 13824): a config beyond them
// is broken, and the module sizes and the memory estimate multiply these.
constexpr std::int64_t kMaxWanLayers = 4096;
constexpr std::int64_t kMaxWanHeads = 1024;
constexpr std::int64_t kMaxWanWidth = 1 << 20;
constexpr std::int64_t kMaxWanPatch = 64;
constexpr std::int64_t kMaxWanSequence = 1 << 24;

void require_wan_size_at_most(std::int64_t value, std::int64_t limit, const std::string& origin,
                              const char* field) {
    if (value > limit) {
        throw Error(ErrorCode::BadInput,
                    origin + ": " + field + " is " + std::to_string(value) + ", more than " +
                        std::to_string(limit) + " (no Wan model comes near it).",
                    std::string("Use the config.json that came with the checkpoint; its ") + field +
                        " is at most " + std::to_string(limit) + ".");
    }
}

void require_wan_sizes(const WanTransformer3DConfig& c, const std::string& origin) {
    const std::pair<const char*, std::pair<std::int64_t, std::int64_t>> sizes[] = {
        {"num_layers", {c.num_layers, kMaxWanLayers}},
        {"num_attention_heads", {c.num_attention_heads, kMaxWanHeads}},
        {"attention_head_dim", {c.attention_head_dim, kMaxWanHeads}},
        {"in_channels", {c.in_channels, kMaxWanWidth}},
        {"out_channels", {c.out_channels, kMaxWanWidth}},
        {"text_dim", {c.text_dim, kMaxWanWidth}},
        {"freq_dim", {c.freq_dim, kMaxWanWidth}},
        {"ffn_dim", {c.ffn_dim, kMaxWanWidth}},
        {"image_dim", {c.image_dim.value_or(0), kMaxWanWidth}},
        {"added_kv_proj_dim", {c.added_kv_proj_dim.value_or(0), kMaxWanWidth}},
        {"rope_max_seq_len", {c.rope_max_seq_len, kMaxWanSequence}},
        {"pos_embed_seq_len", {c.pos_embed_seq_len.value_or(0), kMaxWanSequence}},
        {"patch_size[0]", {c.patch_size[0], kMaxWanPatch}},
        {"patch_size[1]", {c.patch_size[1], kMaxWanPatch}},
        {"patch_size[2]", {c.patch_size[2], kMaxWanPatch}},
    };
    for (const auto& [field, size] : sizes) {
        require_wan_size_at_most(size.first, size.second, origin, field);
    }
}

void validate_config(const WanTransformer3DConfig& c, const std::string& origin) {
    require_wan_sizes(c, origin);
    require_field(c.num_attention_heads > 0 && c.attention_head_dim > 0 && c.num_layers >= 0,
                  origin,
                  "num_attention_heads, attention_head_dim and num_layers must be positive");
    require_field(c.patch_size[0] > 0 && c.patch_size[1] > 0 && c.patch_size[2] > 0, origin,
                  "patch_size must be positive");
    require_field(c.in_channels > 0 && c.out_channels > 0 && c.text_dim > 0 && c.ffn_dim > 0,
                  origin, "channel counts and widths must be positive");
    // The sinusoidal features and each rotary axis pair up channels.
    require_field(c.freq_dim > 0 && c.freq_dim % 2 == 0, origin, "freq_dim must be even");
    require_field(c.attention_head_dim % 2 == 0 && c.attention_head_dim >= 6, origin,
                  "attention_head_dim must be even and at least 6 (three rotary axes)");
    require_field(c.rope_max_seq_len > 0 && c.eps > 0, origin,
                  "rope_max_seq_len and eps must be positive");
    require_field(!c.image_dim || *c.image_dim > 0, origin, "image_dim must be positive");
    require_field(
        !c.added_kv_proj_dim || *c.added_kv_proj_dim == c.inner_dim(), origin,
        "added_kv_proj_dim must equal num_attention_heads * attention_head_dim (the image "
        "embedder's width)");
    require_field(!c.pos_embed_seq_len || (c.image_dim && *c.pos_embed_seq_len > 0), origin,
                  "pos_embed_seq_len needs image_dim");
}

} // namespace

WanTransformer3DConfig WanTransformer3DConfig::from_json(const nlohmann::json& json,
                                                         const std::string& origin) {
    const core::JsonFields f(json, origin);
    const std::string class_name = f.optional<std::string>("_class_name", "");
    if (!class_name.empty() && class_name != "WanTransformer3DModel") {
        throw Error(ErrorCode::BadInput,
                    origin + " describes a " + class_name + ", not a WanTransformer3DModel.",
                    "Point at the transformer/ folder of a diffusers Wan checkpoint.");
    }
    WanTransformer3DConfig c;
    c.patch_size = read_patch_size(json, origin);
    c.num_attention_heads = f.optional("num_attention_heads", c.num_attention_heads);
    c.attention_head_dim = f.optional("attention_head_dim", c.attention_head_dim);
    c.in_channels = f.optional("in_channels", c.in_channels);
    // diffusers: `out_channels or in_channels`, so null (or 0) means in_channels; an absent key
    // is the class default.
    if (json.contains("out_channels")) {
        c.out_channels = f.optional<std::int64_t>("out_channels", 0);
        if (c.out_channels == 0) {
            c.out_channels = c.in_channels;
        }
    }
    c.text_dim = f.optional("text_dim", c.text_dim);
    c.freq_dim = f.optional("freq_dim", c.freq_dim);
    c.ffn_dim = f.optional("ffn_dim", c.ffn_dim);
    c.num_layers = f.optional("num_layers", c.num_layers);
    c.cross_attn_norm = f.optional("cross_attn_norm", c.cross_attn_norm);
    c.qk_norm = json.contains("qk_norm") ? f.maybe<std::string>("qk_norm") : c.qk_norm;
    c.eps = f.optional("eps", c.eps);
    c.image_dim = f.maybe<std::int64_t>("image_dim");
    c.added_kv_proj_dim = f.maybe<std::int64_t>("added_kv_proj_dim");
    c.rope_max_seq_len = f.optional("rope_max_seq_len", c.rope_max_seq_len);
    c.pos_embed_seq_len = f.maybe<std::int64_t>("pos_embed_seq_len");
    validate_config(c, origin);
    return c;
}

WanTransformer3DConfig WanTransformer3DConfig::from_file(const std::string& path) {
    return from_json(core::read_json_file(path), path);
}

nlohmann::json WanTransformer3DConfig::to_json() const {
    auto optional_int = [](const std::optional<std::int64_t>& value) {
        return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
    };
    return {
        {"_class_name", "WanTransformer3DModel"},
        {"_diffusers_version", "0.40.0"},
        {"added_kv_proj_dim", optional_int(added_kv_proj_dim)},
        {"attention_head_dim", attention_head_dim},
        {"cross_attn_norm", cross_attn_norm},
        {"eps", eps},
        {"ffn_dim", ffn_dim},
        {"freq_dim", freq_dim},
        {"image_dim", optional_int(image_dim)},
        {"in_channels", in_channels},
        {"num_attention_heads", num_attention_heads},
        {"num_layers", num_layers},
        {"out_channels", out_channels},
        {"patch_size", patch_size},
        {"pos_embed_seq_len", optional_int(pos_embed_seq_len)},
        {"qk_norm", qk_norm ? nlohmann::json(*qk_norm) : nlohmann::json(nullptr)},
        {"rope_max_seq_len", rope_max_seq_len},
        {"text_dim", text_dim},
    };
}

namespace {

// One released model: what differs between them. Every one has 128-wide heads, a 4096-wide
// UMT5 text embedding, 256 frequencies, (1, 2, 2) patches and eps 1e-6 (diffusers'
// scripts/convert_wan_to_diffusers.py).
struct PresetRow {
    const char* name;
    const char* description;
    std::int64_t heads;
    std::int64_t layers;
    std::int64_t ffn_dim;
    std::int64_t in_channels;
    std::int64_t out_channels;
    std::optional<std::int64_t> image_dim;
    std::optional<std::int64_t> added_kv_proj_dim;
    std::optional<std::int64_t> pos_embed_seq_len;
};

const PresetRow kPresets[] = {
    {"wan2.1-t2v-1.3b", "Wan 2.1 text-to-video 1.3B", 12, 30, 8960, 16, 16, {}, {}, {}},
    {"wan2.1-t2v-14b", "Wan 2.1 text-to-video 14B", 40, 40, 13824, 16, 16, {}, {}, {}},
    {"wan2.1-i2v-14b",
     "Wan 2.1 image-to-video 14B (480p and 720p)",
     40,
     40,
     13824,
     36,
     16,
     1280,
     5120,
     {}},
    {"wan2.1-flf2v-14b", "Wan 2.1 first-last-frame-to-video 14B", 40, 40, 13824, 36, 16, 1280, 5120,
     2 * 257},
    {"wan2.2-t2v-a14b",
     "Wan 2.2 text-to-video A14B (each expert)",
     40,
     40,
     13824,
     16,
     16,
     {},
     {},
     {}},
    {"wan2.2-i2v-a14b",
     "Wan 2.2 image-to-video A14B (each expert)",
     40,
     40,
     13824,
     36,
     16,
     {},
     {},
     {}},
    {"wan2.2-ti2v-5b", "Wan 2.2 text/image-to-video 5B", 24, 30, 14336, 48, 48, {}, {}, {}},
};

WanTransformer3DConfig preset_config(const PresetRow& row) {
    WanTransformer3DConfig c;
    c.num_attention_heads = row.heads;
    c.attention_head_dim = 128;
    c.num_layers = row.layers;
    c.ffn_dim = row.ffn_dim;
    c.in_channels = row.in_channels;
    c.out_channels = row.out_channels;
    c.text_dim = 4096;
    c.freq_dim = 256;
    c.image_dim = row.image_dim;
    c.added_kv_proj_dim = row.added_kv_proj_dim;
    c.pos_embed_seq_len = row.pos_embed_seq_len;
    return c;
}

} // namespace

const std::vector<WanTransformerPreset>& wan_transformer_presets() {
    static const std::vector<WanTransformerPreset> presets = [] {
        std::vector<WanTransformerPreset> list;
        for (const PresetRow& row : kPresets) {
            list.push_back({row.name, row.description, preset_config(row)});
        }
        return list;
    }();
    return presets;
}

const WanTransformerPreset& find_wan_transformer_preset(const std::string& name) {
    std::string known;
    for (const WanTransformerPreset& preset : wan_transformer_presets()) {
        if (preset.name == name) {
            return preset;
        }
        known += (known.empty() ? "" : ", ") + preset.name;
    }
    throw Error(ErrorCode::Usage, "unknown Wan transformer '" + name + "'.",
                "Choose one of: " + known + ".");
}

const WanTransformerPreset* recognise_wan_transformer(const WanTransformer3DConfig& config) {
    nlohmann::json shape = config.to_json();
    shape.erase("qk_norm");
    for (const WanTransformerPreset& preset : wan_transformer_presets()) {
        nlohmann::json candidate = preset.config.to_json();
        candidate.erase("qk_norm");
        if (candidate == shape) {
            return &preset;
        }
    }
    return nullptr;
}

std::int64_t WanTransformer3DConfig::parameter_count() const {
    const std::int64_t d = inner_dim();
    auto linear = [](std::int64_t in, std::int64_t out) {
        return in * out + out;
    };
    std::int64_t count = in_channels * patch_volume() * d + d; // patch_embedding
    // condition_embedder: time_embedder, time_proj, text_embedder
    count += linear(freq_dim, d) + linear(d, d) + linear(d, 6 * d);
    count += linear(text_dim, d) + linear(d, d);
    if (image_dim) {
        const std::int64_t i = *image_dim;
        // image_embedder: norm1, ff (i -> i -> d), norm2, and FLF2V's position table
        count += 2 * i + linear(i, i) + linear(i, d) + 2 * d + pos_embed_seq_len.value_or(0) * i;
    }
    std::int64_t block = 2 * (4 * linear(d, d) + 2 * d); // attn1, attn2 with their q/k norms
    if (added_kv_proj_dim) {
        block += 2 * linear(*added_kv_proj_dim, d) + d; // add_k_proj, add_v_proj, norm_added_k
    }
    block += cross_attn_norm ? 2 * d : 0;             // norm2
    block += linear(d, ffn_dim) + linear(ffn_dim, d); // ffn
    block += 6 * d;                                   // scale_shift_table
    count += num_layers * block;
    count += linear(d, out_channels * patch_volume()) + 2 * d; // proj_out, scale_shift_table
    return count;
}

} // namespace tuneframe::models::wan
