#pragma once

#include "engine/lora/lora_key_scheme.h"

#include <string>
#include <vector>

// The LoRA layouts Wan LoRAs are shared in, besides diffusers/PEFT's
// (`transformer.blocks.N.attn1.to_q.lora_A.weight`), in one place (STYLE.md 8). They name layers
// by the original Wan names (original_keys.h: blocks.N.self_attn.q, cross_attn.k_img, ffn.0,
// time_projection.1, head.head...). Facts read from diffusers 0.40.0 (WanLoraLoaderMixin's
// lora_state_dict and, in loaders/lora_conversion_utils.py,
// _convert_non_diffusers_wan_lora_to_diffusers and _convert_musubi_wan_lora_to_diffusers) and
// ComfyUI's comfy/lora.py:
//
// - "wan": `diffusion_model.<original>.lora_down.weight` [r, in], `.lora_up.weight` [out, r]
//   and `.alpha` (0-d). ComfyUI's LoraLoader maps `diffusion_model.X` onto its model's X.weight
//   for every layer and adds strength * alpha / r * up @ down (a scale of 1 without alpha).
//   diffusers converts a file when any key
//   starts with `diffusion_model.`; it reads alpha only beside the blocks' layers (an alpha of
//   time_projection.1, head.head, text_embedding.*, time_embedding.* or img_emb.proj.* is left
//   over and fails its load), so a "wan" export with adapters outside the blocks is for ComfyUI.
// - "musubi": musubi-tuner's `lora_unet_` + the original name with '.' -> '_'
//   (`lora_unet_blocks_0_self_attn_q`), the same three tensors. musubi-tuner adapts the blocks'
//   Linear layers only, and diffusers' musubi converter reads only those (anything else fails
//   its load), so this layout names the blocks' layers only: an export never writes a key the
//   musubi readers refuse. ComfyUI reads it too (`lora_unet_` + any layer name).
// - "wan_peft", read only: `diffusion_model.<original>.lora_A.weight` / `.lora_B.weight`
//   (diffusers picks lora_A over lora_down for the whole file), with `.alpha` beside them or
//   without (then alpha = rank, as diffusers loads it).
//
// diffusers folds alpha / r into the tensors it converts (A times the scale, B times 1, halving
// the one and doubling the other while A's factor is under half B's) and loads at scaling 1; we
// keep A, B and alpha as the file has them and scale by alpha / r: the same product.
//
// Not read (the generic loader says so, naming the file):
// - the same keys without `diffusion_model.` (`blocks.0.self_attn.q.lora_A.weight`): diffusers
//   converts only files with that prefix and otherwise loads only `transformer.` keys, so it
//   applies nothing from such a file;
// - `.diff` / `.diff_b` (whole weight and bias differences, which the converter's comments find
//   in AccVideo's, CausVid's and lightx2v's LoRAs): diffusers turns `diff_b` into PEFT lora_bias,
//   `head.head.diff` into a lora_A under an identity lora_B, drops the norms' diffs and ignores
//   the rest. An adapter here has neither a bias nor a full-rank delta, and dropping them would
//   change the output silently.
namespace tuneframe::models::wan {

inline constexpr const char* kWanLoRAPrefix = "diffusion_model.";
inline constexpr const char* kMusubiLoRAPrefix = "lora_unet_";

// "blocks.0.attn1.to_q" -> "diffusion_model.blocks.0.self_attn.q"; empty for a module the
// original layout has no name for.
std::string wan_lora_stem(const std::string& module);
// "blocks.0.attn1.to_q" -> "lora_unet_blocks_0_self_attn_q"; empty outside the blocks.
std::string musubi_lora_stem(const std::string& module);

lora::LoRAKeyScheme wan_key_scheme();
lora::LoRAKeyScheme musubi_key_scheme();
lora::LoRAKeyScheme wan_peft_key_scheme(); // not exportable

// The Wan family's layouts, in order: "wan", "musubi" (exportable), "wan_peft" (read only).
std::vector<lora::LoRAKeyScheme> wan_lora_key_schemes();

} // namespace tuneframe::models::wan
