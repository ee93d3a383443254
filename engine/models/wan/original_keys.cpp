#include "engine/models/wan/original_keys.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/text_affixes.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace tuneframe::models::wan {
namespace {

using core::Error;
using core::ErrorCode;

constexpr std::string_view kComfyUIPrefix = "model.diffusion_model.";

struct Rename {
    std::string_view original;
    std::string_view diffusers;
};

constexpr Rename kTopLevel[] = {
    {"patch_embedding", "patch_embedding"},
    {"text_embedding.0", "condition_embedder.text_embedder.linear_1"},
    {"text_embedding.2", "condition_embedder.text_embedder.linear_2"},
    {"time_embedding.0", "condition_embedder.time_embedder.linear_1"},
    {"time_embedding.2", "condition_embedder.time_embedder.linear_2"},
    {"time_projection.1", "condition_embedder.time_proj"},
    {"img_emb.proj.0", "condition_embedder.image_embedder.norm1"},
    {"img_emb.proj.1", "condition_embedder.image_embedder.ff.net.0.proj"},
    {"img_emb.proj.3", "condition_embedder.image_embedder.ff.net.2"},
    {"img_emb.proj.4", "condition_embedder.image_embedder.norm2"},
    {"img_emb.emb_pos", "condition_embedder.image_embedder.pos_embed"},
    {"head.head", "proj_out"},
    {"head.modulation", "scale_shift_table"},
};

// Inside "blocks.N.".
constexpr Rename kBlock[] = {
    {"self_attn.q", "attn1.to_q"},
    {"self_attn.k", "attn1.to_k"},
    {"self_attn.v", "attn1.to_v"},
    {"self_attn.o", "attn1.to_out.0"},
    {"self_attn.norm_q", "attn1.norm_q"},
    {"self_attn.norm_k", "attn1.norm_k"},
    {"cross_attn.q", "attn2.to_q"},
    {"cross_attn.k", "attn2.to_k"},
    {"cross_attn.v", "attn2.to_v"},
    {"cross_attn.o", "attn2.to_out.0"},
    {"cross_attn.norm_q", "attn2.norm_q"},
    {"cross_attn.norm_k", "attn2.norm_k"},
    {"cross_attn.k_img", "attn2.add_k_proj"},
    {"cross_attn.v_img", "attn2.add_v_proj"},
    {"cross_attn.norm_k_img", "attn2.norm_added_k"},
    // The original runs its norms as norm1, norm3 (cross-attention), norm2 (feed-forward).
    {"norm3", "norm2"},
    {"ffn.0", "ffn.net.0.proj"},
    {"ffn.2", "ffn.net.2"},
    {"modulation", "scale_shift_table"},
};

std::string strip_prefix(const std::string& key) {
    return core::starts_with(key, kComfyUIPrefix) ? key.substr(kComfyUIPrefix.size()) : key;
}

// `name` with the first rule whose source is it or a parent module of it applied.
template <std::size_t N>
std::optional<std::string> rename(const std::string& name, const Rename (&rules)[N],
                                  bool to_original) {
    for (const Rename& rule : rules) {
        const std::string_view from = to_original ? rule.diffusers : rule.original;
        const std::string_view to = to_original ? rule.original : rule.diffusers;
        if (name == from || (core::starts_with(name, from) && name[from.size()] == '.')) {
            return std::string(to) + name.substr(from.size());
        }
    }
    return std::nullopt;
}

// "blocks.12.rest" -> ("blocks.12.", "rest"); nullopt for names outside the blocks.
std::optional<std::pair<std::string, std::string>> split_block(const std::string& name) {
    if (!core::starts_with(name, "blocks.")) {
        return std::nullopt;
    }
    const std::size_t dot = name.find('.', 7);
    if (dot == std::string::npos || dot == 7 ||
        !std::all_of(name.begin() + 7, name.begin() + static_cast<std::ptrdiff_t>(dot),
                     [](char c) { return c >= '0' && c <= '9'; })) {
        return std::nullopt;
    }
    return std::pair{name.substr(0, dot + 1), name.substr(dot + 1)};
}

std::optional<std::string> convert(const std::string& name, bool to_original) {
    if (const auto block = split_block(name)) {
        const auto renamed = rename(block->second, kBlock, to_original);
        return renamed ? std::optional(block->first + *renamed) : std::nullopt;
    }
    return rename(name, kTopLevel, to_original);
}

} // namespace

std::string diffusers_name(const std::string& key) {
    const std::string name = strip_prefix(key);
    return convert(name, false).value_or(name);
}

std::optional<std::string> original_name(const std::string& diffusers) {
    return convert(diffusers, true);
}

std::optional<std::string> scaled_weight_name(const std::string& key) {
    const std::string name = strip_prefix(key);
    for (std::string_view suffix : {".scale_weight", ".weight_scale"}) {
        if (core::ends_with(name, suffix)) {
            return name.substr(0, name.size() - suffix.size()) + ".weight";
        }
    }
    return std::nullopt;
}

bool is_ignored_key(const std::string& key) {
    const std::string name = strip_prefix(key);
    return name == "scaled_fp8" || core::ends_with(name, ".scale_input") ||
           core::ends_with(name, ".input_scale") || core::ends_with(name, ".comfy_quant") ||
           name.find(".norm_added_q.") != std::string::npos;
}

WanTransformer3DConfig
infer_transformer_config(const std::map<std::string, std::vector<std::int64_t>>& shapes,
                         std::optional<std::int64_t> num_attention_heads,
                         const std::string& origin) {
    const auto shape = [&](const std::string& name, std::size_t dims) {
        const auto it = shapes.find(name);
        if (it == shapes.end() || it->second.size() != dims) {
            throw Error(ErrorCode::BadInput,
                        "'" + origin + "' is not a Wan transformer checkpoint: " +
                            (it == shapes.end() ? "it has no " + name
                                                : name + " is " + core::shape_string(it->second)) +
                            ".",
                        "Point at a Wan 2.1 / 2.2 transformer checkpoint.");
        }
        return it->second;
    };
    WanTransformer3DConfig c;
    const auto patch = shape("patch_embedding.weight", 5); // [D, C, pt, ph, pw]
    const std::int64_t dim = patch[0];
    c.in_channels = patch[1];
    c.patch_size = {patch[2], patch[3], patch[4]};
    c.out_channels = shape("proj_out.weight", 2)[0] / c.patch_volume();
    c.text_dim = shape("condition_embedder.text_embedder.linear_1.weight", 2)[1];
    c.freq_dim = shape("condition_embedder.time_embedder.linear_1.weight", 2)[1];
    c.ffn_dim = shape("blocks.0.ffn.net.0.proj.weight", 2)[0];
    std::set<std::string> blocks;
    for (const auto& [name, dims] : shapes) {
        if (const auto block = split_block(name)) {
            blocks.insert(block->first);
        }
    }
    c.num_layers = static_cast<std::int64_t>(blocks.size());
    if (!num_attention_heads && dim % 128 != 0) {
        throw Error(ErrorCode::BadInput,
                    "'" + origin + "' holds a Wan transformer " + std::to_string(dim) +
                        " wide, which does not divide into the 128-wide heads of the released "
                        "models.",
                    "Give the number of attention heads (num_attention_heads).");
    }
    c.num_attention_heads = num_attention_heads.value_or(dim / 128);
    if (c.num_attention_heads <= 0 || dim % c.num_attention_heads != 0) {
        throw Error(ErrorCode::BadInput,
                    "'" + origin + "': " + std::to_string(c.num_attention_heads) +
                        " attention heads do not divide its width " + std::to_string(dim) + ".",
                    "Give a number of heads that divides the width.");
    }
    c.attention_head_dim = dim / c.num_attention_heads;
    c.cross_attn_norm = shapes.count("blocks.0.norm2.weight") > 0;
    if (shapes.count("condition_embedder.image_embedder.norm1.weight")) {
        c.image_dim = shape("condition_embedder.image_embedder.norm1.weight", 1)[0];
    }
    if (shapes.count("blocks.0.attn2.add_k_proj.weight")) {
        c.added_kv_proj_dim = shape("blocks.0.attn2.add_k_proj.weight", 2)[1];
    }
    if (shapes.count("condition_embedder.image_embedder.pos_embed")) {
        c.pos_embed_seq_len = shape("condition_embedder.image_embedder.pos_embed", 3)[1];
    }
    // The config's own checks, with the file named.
    return WanTransformer3DConfig::from_json(c.to_json(), origin);
}

bool looks_like_wan_transformer(const std::vector<std::string>& diffusers_names) {
    const std::set<std::string> names(diffusers_names.begin(), diffusers_names.end());
    for (const char* core_tensor :
         {"patch_embedding.weight", "condition_embedder.time_proj.weight", "proj_out.weight",
          "scale_shift_table", "blocks.0.attn1.to_q.weight"}) {
        if (!names.count(core_tensor)) {
            return false;
        }
    }
    return true;
}

std::string describe_checkpoint(const std::vector<std::string>& keys) {
    const auto any = [&](std::initializer_list<std::string_view> parts) {
        return std::any_of(keys.begin(), keys.end(), [&](const std::string& key) {
            return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) {
                return key.find(part) != std::string::npos;
            });
        });
    };
    if (keys.empty()) {
        return "an empty file";
    }
    if (any({"lora_A.", "lora_B.", "lora_down.", "lora_up."})) {
        return "a LoRA adapter";
    }
    if (any({"transformer_blocks."}) && any({"patch_embed."})) {
        return "a CogVideoX transformer";
    }
    if (any({"vace_blocks."})) {
        return "a Wan VACE transformer";
    }
    if (any({"decoder.mid_block.", "decoder.middle.", "decoder.up_blocks.", "post_quant_conv."})) {
        return "a VAE";
    }
    if (any({"encoder.block.", "shared.weight"})) {
        return "a T5 / UMT5 text encoder";
    }
    if (any({"vision_model."})) {
        return "a CLIP image encoder";
    }
    if (any({"double_blocks.", "single_blocks."})) {
        return "a Flux or HunyuanVideo transformer";
    }
    if (any({"input_blocks.", "down_blocks."})) {
        return "a UNet";
    }
    std::vector<std::string> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    std::string examples;
    for (std::size_t i = 0; i < sorted.size() && i < 3; ++i) {
        examples += (i ? ", '" : "'") + sorted[i] + "'";
    }
    return std::to_string(keys.size()) + " tensor(s) such as " + examples;
}

} // namespace tuneframe::models::wan
