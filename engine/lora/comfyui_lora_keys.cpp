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

} // namespace tuneframe::lora
