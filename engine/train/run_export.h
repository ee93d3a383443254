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
std::vector<std::string> export_formats(const models::ModelFolder& model, bool full);

struct ExportRequest {
    std::filesystem::path run;
    std::string format = "diffusers";
    std::optional<std::int64_t> step; // unset: the newest checkpoint
    // A .safetensors file (adapter formats) or a folder (the adapter file is written inside it;
    // a transformer or pipeline is the folder itself).
    std::filesystem::path out;
};

struct ExportResult {
    std::filesystem::path path; // the file or folder written
    std::int64_t step = 0;
    double max_abs_diff = 0; // reloaded export vs the run's own model on a probe input
    double tolerance = 0;
};

// Writes a run's checkpoint in `format`, then loads what it wrote into a fresh base model and
// checks it reproduces the run's model on a fixed probe input; a mismatch is an Internal error
// and the export is removed, so nothing unverified is left behind. `progress` receives stage
// names ("load", "write", "verify").
ExportResult export_run(const ExportRequest& request,
                        const std::function<void(const char* stage)>& progress = {});

} // namespace tuneframe::train
