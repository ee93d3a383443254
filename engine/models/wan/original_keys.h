#pragma once

#include "engine/models/wan/transformer_wan_config.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

// The one place that knows the original Wan (Wan-AI's WanModel, and ComfyUI's files of it) names
// of the transformer's tensors, learned from diffusers' scripts/convert_wan_to_diffusers.py and
// loaders/single_file_utils.py (convert_wan_transformer_to_diffusers):
//   patch_embedding                 -> patch_embedding
//   text_embedding.0 / .2           -> condition_embedder.text_embedder.linear_1 / linear_2
//   time_embedding.0 / .2           -> condition_embedder.time_embedder.linear_1 / linear_2
//   time_projection.1               -> condition_embedder.time_proj
//   img_emb.proj.0 / .1 / .3 / .4   -> condition_embedder.image_embedder.norm1 / ff.net.0.proj /
//                                      ff.net.2 / norm2;  img_emb.emb_pos ->
//                                      …image_embedder.pos_embed
//   head.head / head.modulation     -> proj_out / scale_shift_table
//   blocks.N.self_attn.q/k/v/o      -> blocks.N.attn1.to_q/to_k/to_v/to_out.0 (norm_q, norm_k kept)
//   blocks.N.cross_attn.…           -> blocks.N.attn2.… (k_img, v_img, norm_k_img -> add_k_proj,
//                                      add_v_proj, norm_added_k)
//   blocks.N.norm3                  -> blocks.N.norm2 (the cross-attention norm, the only affine
//   one) blocks.N.ffn.0 / .2             -> blocks.N.ffn.net.0.proj / ffn.net.2 blocks.N.modulation
//   -> blocks.N.scale_shift_table
// ComfyUI's whole-model files put all of it under "model.diffusion_model.".
namespace tuneframe::models::wan {

// The diffusers name of a checkpoint key, original (with or without ComfyUI's prefix) or
// already diffusers' (returned unchanged).
std::string diffusers_name(const std::string& key);
// The original name of a diffusers one; nullopt for a name the original layout has no key for.
std::optional<std::string> original_name(const std::string& diffusers);

// ComfyUI's fp8 files beside the weights: "X.scale_weight" (or "X.weight_scale") multiplies the
// fp8 "X.weight"; this returns "X.weight" for such a key, prefix stripped, or nullopt.
std::optional<std::string> scaled_weight_name(const std::string& key);
// Keys that only serve fp8 matmuls or mark the format ("scaled_fp8", "X.scale_input",
// "X.input_scale", "X.comfy_quant"), and "norm_added_q" weights that diffusers ignores too: read
// by no layer.
bool is_ignored_key(const std::string& key);

// The config a checkpoint's tensors imply, from their shapes by diffusers name: widths and
// channels, layers, patch size, I2V / FLF2V parts. Heads are `num_attention_heads` when given,
// else width / 128 as in every released Wan. Throws BadInput naming `origin` when a shape is not
// a Wan transformer's.
WanTransformer3DConfig
infer_transformer_config(const std::map<std::string, std::vector<std::int64_t>>& shapes,
                         std::optional<std::int64_t> num_attention_heads,
                         const std::string& origin);

// Whether the names (diffusers', after diffusers_name) hold a Wan transformer's core tensors.
bool looks_like_wan_transformer(const std::vector<std::string>& diffusers_names);
// What a checkpoint's keys look like, for messages: "a CogVideoX transformer", "a LoRA adapter",
// or "12 tensors such as 'a', 'b', 'c'".
std::string describe_checkpoint(const std::vector<std::string>& keys);

} // namespace tuneframe::models::wan
