#pragma once

#include "engine/lora/comfyui_lora_keys.h"
#include "engine/lora/lora_key_scheme.h"

#include <torch/nn/module.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

// LoRA files in the diffusers/PEFT layout: `transformer.<module>.lora_A.weight` [r, in] and
// `.lora_B.weight` [out, r], as the pipelines' `save_lora_weights` write them, and in the
// kohya-style layouts other tools read (lora_key_scheme.h).
namespace tuneframe::lora {

struct LoRASaveOptions {
    // Unset: diffusers/PEFT keys under `prefix.`, what diffusers' load_lora_weights reads.
    // Otherwise a kohya-style layout (lora_key_scheme.h): A and B as trained (never folded) with
    // alpha beside them.
    std::optional<LoRAKeyScheme> scheme;
    std::string prefix = "transformer";
    // Fold alpha / rank into lora_B, so loaders that assume alpha = rank (diffusers without
    // metadata, ComfyUI) reproduce the trained strength at weight 1; the metadata then says
    // lora_alpha = rank and records the trained alpha under `tuneframe`.
    bool fold_alpha = true;
    torch::Dtype dtype = torch::kFloat32;
    nlohmann::json tuneframe = nlohmann::json::object(); // base model, trigger word, summary...
};

// Writes every adapter of `model` with metadata `format` = "pt", `lora_config` (a PEFT
// LoraConfig as JSON, as finetrainers writes it) and `tuneframe` (JSON).
void save_lora_weights(torch::nn::Module& model, const std::filesystem::path& file,
                       const LoRASaveOptions& options = {});

struct LoRALoadOptions {
    std::string prefix = "transformer";
    double weight = 1.0; // diffusers' set_adapters weight: scaling = weight * alpha / rank
    // The kohya-style layouts a file may use besides diffusers/PEFT's: the model family's.
    std::vector<LoRAKeyScheme> schemes = {comfyui_key_scheme()};
};

struct LoadedLoRA {
    std::int64_t rank = 0; // the most common one
    double alpha = 0;      // of that rank's layers
    bool alpha_from_metadata = false;
    std::vector<std::string> modules;
};

// Loads adapters into `model` from the diffusers/PEFT layout or one of `schemes`: layers without
// one get one of the file's rank. alpha comes from `lora_config` (or diffusers'
// `lora_adapter_metadata`); a file without it loads at alpha = rank, as diffusers does. Keys that
// are not LoRA tensors, name no Linear layer of the model, or do not fit it are an error listing
// them; so is a model adapter the file lacks. A file none of whose keys names a layer of the
// model (one made for another family), and weight or bias differences or DoRA magnitudes beside
// the pairs (`.diff`, `.diff_b`, `.dora_scale`), are errors of their own.
LoadedLoRA load_lora_weights(torch::nn::Module& model, const std::filesystem::path& file,
                             const LoRALoadOptions& options = {});

} // namespace tuneframe::lora
