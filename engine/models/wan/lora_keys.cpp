#include "engine/models/wan/lora_keys.h"

#include "engine/models/wan/original_keys.h"

#include <algorithm>
#include <optional>

namespace tuneframe::models::wan {

std::string wan_lora_stem(const std::string& module) {
    const std::optional<std::string> original = original_name(module);
    return original ? kWanLoRAPrefix + *original : std::string();
}

std::string musubi_lora_stem(const std::string& module) {
    std::optional<std::string> original = original_name(module);
    if (!original || original->rfind("blocks.", 0) != 0) {
        return {};
    }
    std::replace(original->begin(), original->end(), '.', '_');
    return kMusubiLoRAPrefix + *original;
}

lora::LoRAKeyScheme wan_key_scheme() {
    lora::LoRAKeyScheme scheme;
    scheme.name = "wan";
    scheme.description = "Wan / ComfyUI (LoraLoader; the original Wan names, "
                         "diffusion_model.blocks.N.self_attn.q.lora_down.weight)";
    scheme.file_name = "tuneframe_lora_wan.safetensors";
    scheme.stem = wan_lora_stem;
    return scheme;
}

lora::LoRAKeyScheme musubi_key_scheme() {
    lora::LoRAKeyScheme scheme;
    scheme.name = "musubi";
    scheme.description = "musubi-tuner (lora_unet_blocks_N_self_attn_q.lora_down.weight; "
                         "ComfyUI and diffusers read it too)";
    scheme.file_name = "tuneframe_lora_musubi.safetensors";
    scheme.stem = musubi_lora_stem;
    return scheme;
}

lora::LoRAKeyScheme wan_peft_key_scheme() {
    lora::LoRAKeyScheme scheme;
    scheme.name = "wan_peft";
    scheme.description = "the original Wan names with PEFT's tensors "
                         "(diffusion_model.blocks.N.self_attn.q.lora_A.weight), read only";
    scheme.file_name = "tuneframe_lora_wan_peft.safetensors";
    scheme.stem = wan_lora_stem;
    scheme.down = ".lora_A.weight";
    scheme.up = ".lora_B.weight";
    scheme.exportable = false;
    return scheme;
}

std::vector<lora::LoRAKeyScheme> wan_lora_key_schemes() {
    return {wan_key_scheme(), musubi_key_scheme(), wan_peft_key_scheme()};
}

} // namespace tuneframe::models::wan
