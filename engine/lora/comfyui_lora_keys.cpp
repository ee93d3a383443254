#include "engine/lora/comfyui_lora_keys.h"

#include <algorithm>

namespace tuneframe::lora {

std::string comfyui_module_stem(std::string module) {
    std::replace(module.begin(), module.end(), '.', '_');
    return module;
}

std::string comfyui_lora_key(const std::string& module) {
    return kComfyUIPrefix + comfyui_module_stem(module);
}

LoRAKeyScheme comfyui_key_scheme() {
    LoRAKeyScheme scheme;
    scheme.name = "comfyui";
    scheme.description = "ComfyUI (kijai's CogVideoXWrapper, \"CogVideo LoraSelect\")";
    scheme.file_name = "tuneframe_lora_comfyui.safetensors";
    scheme.stem = comfyui_lora_key;
    scheme.down = kComfyUIDown;
    scheme.up = kComfyUIUp;
    scheme.alpha = kComfyUIAlpha;
    return scheme;
}

} // namespace tuneframe::lora
