#pragma once

#include "engine/lora/lora_key_scheme.h"

#include <string>

// The LoRA layout ComfyUI loads for CogVideoX, in one place (STYLE.md 8). Facts read from
// kijai/ComfyUI-CogVideoXWrapper at fdb8abd (2025-08-07), the ComfyUI route for CogVideoX 1.0 and
// 1.5 alike; the wrapper never calls ComfyUI core's own LoRA loader (comfy/lora.py):
//
// - model_loading.py: the "CogVideo LoraSelect" node (files in models/CogVideo/loras) and
//   "CogVideo LoraSelect Comfy" (models/loras) hand a path and a strength to the model loader
//   nodes ("(Down)load CogVideo Model", "CogVideoX Model Loader"). Those read the file with
//   comfy.utils.load_torch_file and route it on one test: when some key contains "lora_B" the
//   file goes to diffusers' CogVideoXPipeline.load_lora_weights (PEFT keys under
//   "transformer.", alpha = rank unless diffusers' own `lora_adapter_metadata` says otherwise:
//   what our diffusers export writes); otherwise to lora_utils.merge_lora, the VideoX-Fun
//   "kohya" route this layout is for. No metadata is read on that route.
// - lora_utils.py, merge_lora: each key splits at its first '.' into a module part and
//   `lora_up.weight` [out, r], `lora_down.weight` [r, in] or `alpha` (a scalar; `.item()`). The
//   module part keeps what follows "lora_unet_", is cut at every '_', and is walked from the
//   transformer by joining pieces with '_' until a child of that name exists, so
//   `transformer_blocks_0_attn1_to_out_0` reaches transformer_blocks.0.attn1.to_out.0. A name
//   that does not resolve fails the whole file ("Can't recognize LoRA").
// - The weight update is W += strength * (alpha / r) * up @ down, in float32 whatever the file's
//   dtype (r = up's second dimension; no alpha means a scale of 1). Every layer is merged into
//   the weights at load time; nothing stays a separate adapter.
// - custom_cogvideox_transformer_3d.py and embeddings.py keep diffusers' module names for 1.0 and
//   1.5 (1.5 only adds Linear layers: patch_embed.proj, which is a Conv2d in 1.0, and the I2V
//   ofs_embedding), so the key of a module is the same in both.
//
// So our keys are `lora_unet_` + the module name with '.' replaced by '_', tensors float32 (the
// loader's compute dtype: no rounding on the way), A and B as trained and alpha beside them; the
// wrapper's strength 1 then reproduces the trained model. VideoX-Fun's own trainer writes
// `lora_unet__…` (an empty root name); the walk skips the empty piece, so both load alike.
namespace tuneframe::lora {

inline constexpr const char* kComfyUIPrefix = "lora_unet_";
inline constexpr const char* kComfyUIDown = ".lora_down.weight";
inline constexpr const char* kComfyUIUp = ".lora_up.weight";
inline constexpr const char* kComfyUIAlpha = ".alpha";

// "transformer_blocks.0.attn1.to_q" -> "transformer_blocks_0_attn1_to_q": the key stem, and
// what our own loader matches a stem against.
std::string comfyui_module_stem(std::string module);
// "transformer_blocks.0.attn1.to_q" -> "lora_unet_transformer_blocks_0_attn1_to_q".
std::string comfyui_lora_key(const std::string& module);
// The layout as a key scheme: what the CogVideoX family exports as "comfyui".
LoRAKeyScheme comfyui_key_scheme();

} // namespace tuneframe::lora
