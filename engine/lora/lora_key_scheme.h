#pragma once

#include <functional>
#include <string>

namespace tuneframe::lora {

// A LoRA file layout other than diffusers/PEFT's (`transformer.<module>.lora_A.weight`): the
// kohya-style files ComfyUI, the original model repositories and other trainers read, where
// every adapted module has `<stem><down>` [r, in], `<stem><up>` [out, r] and `<stem><alpha>` (a
// 0-d float32 scalar). Each family names its modules' stems its own way, in one place.
struct LoRAKeyScheme {
    std::string name;        // "comfyui", "wan", "musubi": the export format's name
    std::string description; // for messages and `export --help`
    std::string file_name;   // the default file name of an export in this layout
    // The stem of a model's module ("blocks.0.attn1.to_q" ->
    // "diffusion_model.blocks.0.self_attn.q"); empty for a module this layout cannot name.
    std::function<std::string(const std::string& module)> stem;
    std::string down = ".lora_down.weight";
    std::string up = ".lora_up.weight";
    std::string alpha = ".alpha";
    // False for read-only variants: a loader must accept them because people share files in
    // them, but no tool needs us to write them (Wan's `diffusion_model.` keys with PEFT's
    // lora_A / lora_B), so `export` does not offer them.
    bool exportable = true;
};

} // namespace tuneframe::lora
