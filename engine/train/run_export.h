#pragma once

#include "engine/models/model_folder.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::train {

// What an export writes: "diffusers" (pytorch_lora_weights.safetensors, PEFT keys, alpha folded
// into lora_B), one of the model family's kohya-style LoRA layouts ("comfyui"; for Wan also
// "wan" and "musubi"), "merged" (the transformer with the adapter merged, diffusers layout,
// sharded) or "pipeline" (a whole diffusers pipeline: the merged transformer and the base's
// other parts). A full fine-tune has only the last two.
//
// A two-expert model (Wan 2.2 A14B) exports each expert the run trained on its own: an adapter
// format writes `<stem>_high_noise.safetensors` and `<stem>_low_noise.safetensors` (the names
// musubi-tuner and ComfyUI workflows give the pair; diffusers loads the second with
// load_lora_weights(..., load_into_transformer_2=True)); "merged" writes the folder
// `transformer/` and `transformer_2/`, each a diffusers transformer folder (an expert the export
// leaves out is the base's, linked); "pipeline" has both experts in place.
std::vector<std::string> export_formats(const models::ModelFolder& model, bool full);

struct ExportRequest {
    std::filesystem::path run;
    std::string format = "diffusers";
    std::optional<std::int64_t> step; // unset: the newest checkpoint
    // A .safetensors file (adapter formats) or a folder (the adapter file is written inside it;
    // a transformer or pipeline is the folder itself).
    std::filesystem::path out;
    // Two-expert models: "high_noise" or "low_noise" exports that expert alone, "both" both;
    // empty: every expert the run trained. An expert the run did not train is refused.
    std::string expert;
};

// One verified part of an export: an adapter file, or an expert's transformer folder.
struct ExportedFile {
    std::filesystem::path path;
    std::string expert;      // "high_noise" | "low_noise"; empty for one-transformer models
    double max_abs_diff = 0; // reloaded into a fresh base of its expert vs the run's own model
    double tolerance = 0;
};

struct ExportResult {
    // The file or folder written: an adapter file (of a two-expert run, the first written),
    // the transformer folder, the two experts' folder or the pipeline.
    std::filesystem::path path;
    std::int64_t step = 0;
    // The part furthest from its model, relative to its tolerance.
    double max_abs_diff = 0;
    double tolerance = 0;
    std::vector<ExportedFile> files; // one per exported expert, in expert order
};

// Writes a run's checkpoint in `format`, then loads what it wrote into a fresh base model and
// checks it reproduces the run's model on a fixed probe input (each expert of a two-expert model
// in a fresh base of that expert); a mismatch is an Internal error and everything the export
// wrote is removed, so nothing unverified is left behind. `progress` receives stage
// names ("load", "write", "verify").
ExportResult export_run(const ExportRequest& request,
                        const std::function<void(const char* stage)>& progress = {});

} // namespace tuneframe::train
