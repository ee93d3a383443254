#include "engine/train/run_export.h"

#include "common/remove_tree.h"
#include "common/training_job.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/model_family.h"
#include "engine/train/training_checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

struct RunModel {
    common::TrainingJob job;
    fs::path base_model;
    LoadedCheckpoint checkpoint;
};

RunModel open_run(const ExportRequest& request) {
    const CheckpointStore store(request.run);
    const std::vector<fs::path> checkpoints = store.list();
    if (checkpoints.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The run '" + request.run.string() + "' has no checkpoint to export.",
                          "Train until a checkpoint is written (or send `checkpoint`), then "
                          "export.");
    }
    fs::path chosen = checkpoints.front();
    if (request.step) {
        auto it = std::find_if(checkpoints.begin(), checkpoints.end(), [&](const fs::path& p) {
            return CheckpointStore::step_of(p) == *request.step;
        });
        if (it == checkpoints.end()) {
            std::string steps;
            for (const fs::path& p : checkpoints) {
                steps += (steps.empty() ? "" : ", ") + std::to_string(CheckpointStore::step_of(p));
            }
            throw core::Error(core::ErrorCode::BadInput,
                              "The run '" + request.run.string() + "' has no checkpoint at step " +
                                  std::to_string(*request.step) + ".",
                              "Choose one of the steps it has: " + steps + ".");
        }
        chosen = *it;
    }
    RunModel run;
    const fs::path job_file = chosen / "job.json";
    run.job = common::TrainingJob::from_json(core::read_json_file(job_file), job_file.string());
    run.base_model = run.job.model;
    if (run.base_model.is_relative()) {
        // Jobs name the model relative to the run's job.json, one level above checkpoints/.
        run.base_model = request.run / run.base_model;
    }
    run.checkpoint = store.load(chosen);
    return run;
}

models::DiffusionTransformer base_transformer(const models::ModelFolder& folder,
                                              c10::ScalarType dtype) {
    models::TransformerLoadOptions load;
    load.dtype = dtype;
    models::DiffusionTransformer model = folder.load_transformer(load);
    model->eval();
    return model;
}

lora::LoRAConfig lora_config(const common::TrainingJob& job) {
    lora::LoRAConfig config;
    config.rank = job.lora.rank;
    config.alpha = job.lora.alpha;
    config.target_modules = job.lora.targets;
    return config;
}

void copy_parameters(torch::nn::Module& model, const std::map<std::string, at::Tensor>& tensors,
                     const fs::path& origin) {
    torch::NoGradGuard no_grad;
    std::size_t copied = 0;
    for (auto& item : model.named_parameters()) {
        if (auto it = tensors.find(item.key()); it != tensors.end()) {
            item.value().copy_(it->second);
            ++copied;
        }
    }
    if (copied != tensors.size()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The checkpoint '" + origin.string() + "' holds " +
                              std::to_string(tensors.size() - copied) +
                              " tensors the model does not have.",
                          "The run's base model folder changed since training; export with the "
                          "model it was trained on.");
    }
}

// The model's output for the family's fixed probe input.
at::Tensor probe_output(const models::ModelFolder& folder,
                        models::DiffusionTransformerImpl& model) {
    torch::NoGradGuard no_grad;
    return model.forward(folder.probe_inputs()).to(torch::kFloat);
}

// The kohya-style layout `format` names, if it is one of the family's.
std::optional<lora::LoRAKeyScheme> key_scheme(const models::ModelFolder& folder,
                                              const std::string& format) {
    for (lora::LoRAKeyScheme& scheme : folder.lora_key_schemes()) {
        if (scheme.exportable && scheme.name == format) {
            return std::move(scheme);
        }
    }
    return std::nullopt;
}

fs::path adapter_file(const fs::path& out, const char* default_name) {
    if (out.extension() == ".safetensors") {
        if (!out.parent_path().empty()) {
            fs::create_directories(out.parent_path());
        }
        return out;
    }
    fs::create_directories(out);
    return out / default_name;
}

// What a folder export writes. A transformer: config.json and the weights, single or sharded. A
// pipeline: model_index.json and the component folders (`parts`, the base's, and the
// transformer).
bool is_export_entry(const fs::directory_entry& entry, bool pipeline,
                     const std::vector<std::string>& parts) {
    const std::string name = entry.path().filename().string();
    if (pipeline) {
        return (entry.is_regular_file() && name == "model_index.json") ||
               (entry.is_directory() &&
                (name == "transformer" ||
                 std::find(parts.begin(), parts.end(), name) != parts.end()));
    }
    const auto ends_with = [&](const std::string& tail) {
        return name.size() >= tail.size() &&
               name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    return entry.is_regular_file() &&
           (name == "config.json" ||
            (name.rfind("diffusion_pytorch_model", 0) == 0 &&
             (ends_with(".safetensors") || ends_with(".safetensors.index.json"))));
}

// The folder a transformer or pipeline export goes to, refused when it holds anything but an
// earlier export of the same kind (which the new one replaces whole): writing into a folder of
// other files would mix with them, and a failed export could not be told apart from them to
// remove it.
fs::path folder_destination(const fs::path& requested, bool pipeline,
                            const std::vector<std::string>& parts) {
    fs::path out = requested.lexically_normal();
    if (out.filename().empty()) {
        out = out.parent_path(); // "folder/"
    }
    if (!fs::exists(out)) {
        return out;
    }
    const std::string what = pipeline ? "pipeline" : "transformer";
    if (!fs::is_directory(out)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + out.string() + "' is a file; a " + what +
                              " is exported as a folder.",
                          "Choose a new or empty folder.");
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
        if (!is_export_entry(entry, pipeline, parts)) {
            throw core::Error(core::ErrorCode::BadInput,
                              "'" + out.string() + "' already holds other files (" +
                                  entry.path().filename().string() + "); the " + what +
                                  " would be written among them.",
                              "Choose a new or empty folder, for example '" +
                                  (out / what).string() + "'. A folder holding only an earlier " +
                                  what + " export is replaced.");
        }
    }
    return out;
}

// A file of the base model in the export: a hard link to it where the filesystem allows (no
// space taken: the text encoder alone is 9.5 GB), a copy otherwise. Links are resolved first:
// the Hugging Face cache's files are relative links into its blobs.
void link_or_copy(const fs::path& from, const fs::path& to) {
    const fs::path real = fs::canonical(from);
    std::error_code error;
    fs::create_hard_link(real, to, error);
    if (error) {
        fs::copy_file(real, to);
    }
}

// The base model's other parts beside the exported transformer, so that the folder is a whole
// pipeline that diffusers and Tuneframe load as it is.
void add_base_components(const fs::path& base, const fs::path& folder,
                         const std::vector<std::string>& parts) {
    if (fs::is_regular_file(base / "model_index.json")) {
        fs::copy_file(fs::canonical(base / "model_index.json"), folder / "model_index.json");
    }
    for (const std::string& component : parts) {
        const fs::path root = base / component;
        fs::create_directories(folder / component);
        for (auto it = fs::recursive_directory_iterator(
                 root, fs::directory_options::follow_directory_symlink);
             it != fs::recursive_directory_iterator(); ++it) {
            // Lexically: fs::relative would resolve a cache link to its blob.
            const fs::path to = folder / component / it->path().lexically_relative(root);
            if (it->is_directory()) {
                fs::create_directories(to);
            } else if (it->is_regular_file()) {
                link_or_copy(it->path(), to);
            }
        }
    }
}

// Beside `out`, hidden, so that a killed export never leaves a half-written folder where the
// studio looks for exports.
fs::path sibling(const fs::path& out, const char* suffix) {
    return out.parent_path() / ("." + out.filename().string() + suffix);
}

// Writes the transformer (inside a pipeline's folder, or as the folder) beside `destination`;
// returns where.
fs::path write_staged_folder(const models::ModelFolder& folder,
                             const models::DiffusionTransformerImpl& model,
                             const fs::path& destination, bool pipeline) {
    const fs::path staged = sibling(destination, ".partial");
    std::error_code ignored;
    remove_tree(staged, ignored); // a killed export's
    if (pipeline) {
        folder.save_transformer(model, staged / "transformer");
        add_base_components(folder.root(), staged, folder.pipeline_parts());
    } else {
        folder.save_transformer(model, staged);
    }
    return staged;
}

// Moves the verified `staged` folder to `out`, replacing an earlier export there. Between the
// two renames the earlier one is still whole, beside it.
void move_into_place(const fs::path& staged, const fs::path& out) {
    std::error_code ignored;
    if (fs::exists(out)) {
        const fs::path replaced = sibling(out, ".replaced");
        remove_tree(replaced, ignored);
        fs::rename(out, replaced);
        fs::rename(staged, out);
        remove_tree(replaced, ignored);
        return;
    }
    fs::rename(staged, out);
}

} // namespace

std::vector<std::string> export_formats(const models::ModelFolder& model, bool full) {
    if (full) {
        return {"merged", "pipeline"};
    }
    std::vector<std::string> formats = {"diffusers"};
    for (const lora::LoRAKeyScheme& scheme : model.lora_key_schemes()) {
        if (scheme.exportable) {
            formats.push_back(scheme.name);
        }
    }
    formats.push_back("merged");
    formats.push_back("pipeline");
    return formats;
}

ExportResult export_run(const ExportRequest& request,
                        const std::function<void(const char* stage)>& progress) {
    auto report = [&](const char* stage) {
        if (progress) {
            progress(stage);
        }
    };
    report("load");
    const RunModel run = open_run(request);
    const std::unique_ptr<models::ModelFolder> folder = models::open_model_folder(run.base_model);
    const bool full = run.job.mode == "full";
    const std::vector<std::string> formats = export_formats(*folder, full);
    if (std::find(formats.begin(), formats.end(), request.format) == formats.end()) {
        std::string choices;
        for (const std::string& format : formats) {
            choices += (choices.empty() ? "" : ", ") + format;
        }
        throw core::Error(core::ErrorCode::BadInput,
                          "A " + std::string(full ? "full fine-tune" : "LoRA run") + " of " +
                              folder->description() + " cannot be exported as '" + request.format +
                              "'.",
                          "Use one of: " + choices + ".");
    }
    const std::optional<lora::LoRAKeyScheme> scheme = key_scheme(*folder, request.format);
    // Checked before the model loads, which takes long for a large one.
    const bool pipeline_export = request.format == "pipeline";
    const bool folder_export = request.format == "merged" || pipeline_export;
    const fs::path destination =
        folder_export ? folder_destination(request.out, pipeline_export, folder->pipeline_parts())
                      : fs::path();
    // fp32 verifies tightly; bf16 runs are compared in bf16 with the bf16 tolerance.
    const c10::ScalarType dtype = run.job.precision == "fp32" ? c10::kFloat : c10::kBFloat16;
    models::DiffusionTransformer model = base_transformer(*folder, dtype);
    if (!full) {
        lora::inject_lora(*model, lora_config(run.job));
    }
    copy_parameters(*model, run.checkpoint.trainable, run.checkpoint.folder);
    const at::Tensor expected = probe_output(*folder, *model);

    report("write");
    ExportResult result;
    result.step = run.checkpoint.state.step;
    nlohmann::json summary = {{"base_model", fs::absolute(run.base_model).string()},
                              {"trigger_word", run.job.trigger_word},
                              {"step", result.step},
                              {"rank", run.job.lora.rank},
                              {"alpha", run.job.lora.alpha},
                              {"optimizer", run.job.optimizer.name},
                              {"lr", run.job.optimizer.lr},
                              {"precision", run.job.precision}};
    if (folder_export) {
        if (!full) {
            lora::merge_lora(*model);
        }
        result.path = write_staged_folder(*folder, *model, destination, pipeline_export);
    } else {
        lora::LoRASaveOptions options;
        options.scheme = scheme;
        options.tuneframe = summary;
        result.path = adapter_file(request.out, scheme ? scheme->file_name.c_str()
                                                       : "pytorch_lora_weights.safetensors");
        lora::save_lora_weights(*model, result.path, options);
    }

    report("verify");
    models::DiffusionTransformer reloaded;
    if (folder_export) {
        // A pipeline is verified as a whole: every part the sampler needs opens.
        if (pipeline_export) {
            reloaded = base_transformer(*models::open_model_folder(result.path), dtype);
        } else {
            reloaded = base_transformer(*folder->with_transformer(result.path), dtype);
        }
    } else {
        reloaded = base_transformer(*folder, dtype);
        lora::LoRALoadOptions options;
        options.schemes = folder->lora_key_schemes();
        lora::load_lora_weights(*reloaded, result.path, options);
    }
    reloaded->eval();
    const at::Tensor actual = probe_output(*folder, *reloaded);
    result.max_abs_diff = (actual - expected).abs().max().item<double>();
    const double scale = expected.abs().max().item<double>();
    result.tolerance = dtype == c10::kFloat ? 1e-4 * (1 + scale) : 2e-2 * (1 + scale);
    if (!(result.max_abs_diff <= result.tolerance)) {
        std::error_code ignored;
        remove_tree(result.path, ignored);
        throw core::Error(core::ErrorCode::Internal,
                          "The " + request.format + " export of step " +
                              std::to_string(result.step) +
                              " does not reproduce the run's model (max difference " +
                              std::to_string(result.max_abs_diff) + "); it was removed.",
                          "Please report this with the run's job.json.");
    }
    if (folder_export) {
        move_into_place(result.path, destination);
        result.path = destination;
    }
    return result;
}

} // namespace tuneframe::train
