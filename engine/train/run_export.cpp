#include "engine/train/run_export.h"

#include "common/remove_tree.h"
#include "common/training_job.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/lora/lora_injection.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/model_family.h"
#include "engine/train/run_experts.h"
#include "engine/train/training_checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <algorithm>
#include <array>
#include <numeric>

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

// The base model's transformer of `expert`, as it is stored, in `dtype`, for inference.
models::DiffusionTransformer base_transformer(const models::ModelFolder& folder,
                                              c10::ScalarType dtype, int expert) {
    models::TransformerLoadOptions load;
    load.dtype = dtype;
    models::DiffusionTransformer model = folder.load_transformer(load, expert);
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

using ExpertTensors = std::map<std::string, at::Tensor>;

void copy_parameters(torch::nn::Module& model, const ExpertTensors& tensors,
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

// The checkpoint's tensors by expert, each named as its expert's model names it (the trainer
// keeps the second expert's under "transformer_2.").
std::map<int, ExpertTensors> tensors_by_expert(const LoadedCheckpoint& checkpoint, int experts) {
    std::map<int, ExpertTensors> split;
    for (const auto& [name, tensor] : checkpoint.trainable) {
        int expert = 0;
        for (int e = experts - 1; e > 0; --e) {
            if (name.rfind(run_experts::checkpoint_prefix(e), 0) == 0) {
                expert = e;
                break;
            }
        }
        split[expert].emplace(name.substr(run_experts::checkpoint_prefix(expert).size()), tensor);
    }
    return split;
}

// "high-noise expert": an expert, for messages.
std::string expert_text(int expert) {
    return std::string(expert == 0 ? "high" : "low") + "-noise expert";
}

// "the high-noise expert", "both experts": what a run trained, for messages.
std::string experts_text(const std::vector<int>& experts) {
    return experts.size() > 1 ? std::string("both experts") : "the " + expert_text(experts.front());
}

// The experts the export writes: every one the run trained, or those `choice` names
// (high_noise, low_noise, both), which the run must have trained.
std::vector<int> experts_to_export(const std::string& choice, const RunModel& run,
                                   const models::ModelFolder& folder, const fs::path& run_folder) {
    const std::vector<int> trained = run_experts::trained(run.job, folder.experts());
    if (choice.empty()) {
        return trained;
    }
    if (folder.experts() < 2) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The run '" + run_folder.string() + "' trained " + folder.description() +
                              ", which has one transformer; there is no expert '" + choice +
                              "' to choose.",
                          "Leave --expert out: it chooses between the two experts of a Wan 2.2 "
                          "A14B run.");
    }
    std::vector<int> wanted;
    if (choice == "both") {
        wanted.resize(static_cast<std::size_t>(folder.experts()));
        std::iota(wanted.begin(), wanted.end(), 0);
    } else if (const std::optional<int> expert = run_experts::parse(choice)) {
        wanted = {*expert};
    } else {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + choice + "' is not an expert of " + folder.description() + ".",
                          "Use --expert high_noise, low_noise or both.");
    }
    for (const int expert : wanted) {
        if (std::find(trained.begin(), trained.end(), expert) == trained.end()) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The run '" + run_folder.string() + "' trained " +
                                  experts_text(trained) + " only, so it has no " +
                                  expert_text(expert) + " to export.",
                              "Export with --expert " + run_experts::name(trained.front()) +
                                  ", or leave --expert out to export what the run trained.");
        }
    }
    return wanted;
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

// Where an adapter goes: `out` itself when it names a .safetensors file, else `default_name`
// inside the folder `out`. A two-expert model's files carry the expert's name after the stem
// ("_high_noise"), as the Wan community names the pair.
fs::path adapter_file(const fs::path& out, const std::string& default_name,
                      const std::string& expert) {
    fs::path file = out / default_name;
    if (out.extension() == ".safetensors") {
        file = out;
        if (!out.parent_path().empty()) {
            fs::create_directories(out.parent_path());
        }
    } else {
        fs::create_directories(out);
    }
    if (!expert.empty()) {
        file.replace_filename(file.stem().string() + "_" + expert + ".safetensors");
    }
    return file;
}

// How a folder export is laid out.
enum class ExportFolderLayout {
    Transformer, // the folder is the transformer: a one-transformer model's merged export
    Experts,     // transformer/ and transformer_2/: a two-expert model's merged export
    Pipeline,    // model_index.json, the experts' folders and the base's other parts
};

const char* layout_noun(ExportFolderLayout layout) {
    switch (layout) {
    case ExportFolderLayout::Transformer:
        return "transformer";
    case ExportFolderLayout::Experts:
        return "pair of transformers";
    case ExportFolderLayout::Pipeline:
        return "pipeline";
    }
    return "";
}

// What a folder export writes. A transformer: config.json and the weights, single or sharded.
// Two experts: their folders. A pipeline: model_index.json and the component folders (`parts`,
// the base's, and the experts').
bool is_export_entry(const fs::directory_entry& entry, ExportFolderLayout layout,
                     const std::vector<std::string>& folders) {
    const std::string name = entry.path().filename().string();
    if (layout != ExportFolderLayout::Transformer) {
        return (layout == ExportFolderLayout::Pipeline && entry.is_regular_file() &&
                name == "model_index.json") ||
               (entry.is_directory() &&
                std::find(folders.begin(), folders.end(), name) != folders.end());
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
fs::path folder_destination(const fs::path& requested, ExportFolderLayout layout,
                            const std::vector<std::string>& folders) {
    fs::path out = requested.lexically_normal();
    if (out.filename().empty()) {
        out = out.parent_path(); // "folder/"
    }
    if (!fs::exists(out)) {
        return out;
    }
    const std::string what = layout_noun(layout);
    if (!fs::is_directory(out)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + out.string() + "' is a file; a " + what +
                              " is exported as a folder.",
                          "Choose a new or empty folder.");
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(out)) {
        if (!is_export_entry(entry, layout, folders)) {
            const std::string example =
                layout == ExportFolderLayout::Pipeline ? "pipeline" : "transformer";
            throw core::Error(
                core::ErrorCode::BadInput,
                "'" + out.string() + "' already holds other files (" +
                    entry.path().filename().string() + "); the " + what +
                    " would be written among them.",
                "Choose a new or empty folder, for example '" + (out / example).string() +
                    "'. A folder holding only an earlier " + what + " export is replaced.");
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

// The base model's folder `from` (a component) as `to`, file by file.
void link_base_folder(const fs::path& from, const fs::path& to) {
    fs::create_directories(to);
    for (auto it = fs::recursive_directory_iterator(
             from, fs::directory_options::follow_directory_symlink);
         it != fs::recursive_directory_iterator(); ++it) {
        // Lexically: fs::relative would resolve a cache link to its blob.
        const fs::path target = to / it->path().lexically_relative(from);
        if (it->is_directory()) {
            fs::create_directories(target);
        } else if (it->is_regular_file()) {
            link_or_copy(it->path(), target);
        }
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
        link_base_folder(base / component, folder / component);
    }
}

// Beside `out`, hidden, so that a killed export never leaves a half-written folder where the
// studio looks for exports.
fs::path sibling(const fs::path& out, const char* suffix) {
    return out.parent_path() / ("." + out.filename().string() + suffix);
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

// One export of one run: each expert it writes is loaded with the run's values, written, and
// reloaded into a fresh base of that expert to be compared, one expert at a time (two 14 B
// experts never sit in memory together, with their reloaded copies besides).
class RunExporter {
public:
    RunExporter(const ExportRequest& request, std::function<void(const char* stage)> progress);
    ExportResult write_export();

private:
    void check_format() const;
    void check_tensors() const;
    // The transformer as the run trained it: the base, its adapters and the checkpoint's values.
    models::DiffusionTransformer run_model(int expert) const;
    std::string expert_label(int expert) const;
    nlohmann::json summary(int expert) const;
    // Compares `reloaded` with the run's output `expected`; a mismatch is an Internal error.
    void verify(const fs::path& path, int expert, models::DiffusionTransformerImpl& reloaded,
                const at::Tensor& expected);
    void export_adapters();
    void export_folder();
    ExportFolderLayout layout() const;
    // Where expert `expert` goes inside the staged folder.
    fs::path expert_folder(const fs::path& staged, int expert) const;
    void report_stage(const char* stage) const;

    const ExportRequest& request_;
    std::function<void(const char* stage)> progress_;
    RunModel run_;
    std::unique_ptr<models::ModelFolder> folder_;
    bool full_ = false;
    c10::ScalarType dtype_ = c10::kFloat;
    std::vector<int> experts_; // those written, in order
    std::map<int, ExpertTensors> tensors_;
    ExportResult result_;
};

RunExporter::RunExporter(const ExportRequest& request,
                         std::function<void(const char* stage)> progress)
    : request_(request)
    , progress_(std::move(progress)) {}

void RunExporter::report_stage(const char* stage) const {
    if (progress_) {
        progress_(stage);
    }
}

void RunExporter::check_format() const {
    const std::vector<std::string> formats = export_formats(*folder_, full_);
    if (std::find(formats.begin(), formats.end(), request_.format) != formats.end()) {
        return;
    }
    std::string choices;
    for (const std::string& format : formats) {
        choices += (choices.empty() ? "" : ", ") + format;
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "A " + std::string(full_ ? "full fine-tune" : "LoRA run") + " of " +
                          folder_->description() + " cannot be exported as '" + request_.format +
                          "'.",
                      "Use one of: " + choices + ".");
}

// Every tensor belongs to an expert the run trained, and each expert exported has some.
void RunExporter::check_tensors() const {
    const std::vector<int> trained = run_experts::trained(run_.job, folder_->experts());
    for (const auto& [expert, tensors] : tensors_) {
        if (std::find(trained.begin(), trained.end(), expert) == trained.end()) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The checkpoint '" + run_.checkpoint.folder.string() + "' holds " +
                                  std::to_string(tensors.size()) + " tensors of the " +
                                  expert_text(expert) +
                                  ", which its job.json says the run did "
                                  "not train.",
                              "Export a checkpoint the run wrote itself, with the job.json it "
                              "was written with.");
        }
    }
    for (const int expert : experts_) {
        if (!tensors_.count(expert)) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The checkpoint '" + run_.checkpoint.folder.string() +
                                  "' holds nothing of " + experts_text({expert}) +
                                  ", which its job.json says the run trained.",
                              "Export a checkpoint the run wrote itself, or choose the expert it "
                              "holds with --expert.");
        }
    }
}

models::DiffusionTransformer RunExporter::run_model(int expert) const {
    models::DiffusionTransformer model = base_transformer(*folder_, dtype_, expert);
    if (!full_) {
        lora::inject_lora(*model, lora_config(run_.job));
    }
    copy_parameters(*model, tensors_.at(expert), run_.checkpoint.folder);
    return model;
}

// The expert's name in files and messages; empty for one-transformer models.
std::string RunExporter::expert_label(int expert) const {
    return folder_->experts() > 1 ? run_experts::name(expert) : std::string();
}

nlohmann::json RunExporter::summary(int expert) const {
    nlohmann::json summary = {{"base_model", fs::absolute(run_.base_model).string()},
                              {"trigger_word", run_.job.trigger_word},
                              {"step", result_.step},
                              {"rank", run_.job.lora.rank},
                              {"alpha", run_.job.lora.alpha},
                              {"optimizer", run_.job.optimizer.name},
                              {"lr", run_.job.optimizer.lr},
                              {"precision", run_.job.precision}};
    if (folder_->experts() > 1) {
        summary["expert"] = run_experts::name(expert);
    }
    return summary;
}

void RunExporter::verify(const fs::path& path, int expert,
                         models::DiffusionTransformerImpl& reloaded, const at::Tensor& expected) {
    reloaded.eval();
    const at::Tensor actual = probe_output(*folder_, reloaded);
    ExportedFile file;
    file.path = path;
    file.expert = expert_label(expert);
    file.max_abs_diff = (actual - expected).abs().max().item<double>();
    const double scale = expected.abs().max().item<double>();
    // fp32 verifies tightly; bf16 runs are compared in bf16 with the bf16 tolerance.
    file.tolerance = dtype_ == c10::kFloat ? 1e-4 * (1 + scale) : 2e-2 * (1 + scale);
    if (!(file.max_abs_diff <= file.tolerance)) {
        throw core::Error(core::ErrorCode::Internal,
                          "The " + request_.format + " export of step " +
                              std::to_string(result_.step) +
                              (file.expert.empty() ? "" : " (" + experts_text({expert}) + ")") +
                              " does not reproduce the run's model (max difference " +
                              std::to_string(file.max_abs_diff) + "); it was removed.",
                          "Please report this with the run's job.json.");
    }
    if (result_.files.empty() ||
        file.max_abs_diff * result_.tolerance > result_.max_abs_diff * file.tolerance) {
        result_.max_abs_diff = file.max_abs_diff;
        result_.tolerance = file.tolerance;
    }
    result_.files.push_back(file);
}

void RunExporter::export_adapters() {
    const std::optional<lora::LoRAKeyScheme> scheme = key_scheme(*folder_, request_.format);
    const std::string default_name =
        scheme ? scheme->file_name : std::string("pytorch_lora_weights.safetensors");
    std::vector<fs::path> written;
    try {
        for (const int expert : experts_) {
            if (expert != experts_.front()) {
                report_stage("load");
            }
            models::DiffusionTransformer model = run_model(expert);
            const at::Tensor expected = probe_output(*folder_, *model);

            report_stage("write");
            const fs::path file = adapter_file(request_.out, default_name, expert_label(expert));
            lora::LoRASaveOptions options;
            options.scheme = scheme;
            options.tuneframe = summary(expert);
            written.push_back(file);
            lora::save_lora_weights(*model, file, options);
            model.reset();

            report_stage("verify");
            models::DiffusionTransformer reloaded = base_transformer(*folder_, dtype_, expert);
            lora::LoRALoadOptions load;
            load.schemes = folder_->lora_key_schemes();
            lora::load_lora_weights(*reloaded, file, load);
            verify(file, expert, *reloaded, expected);
        }
    } catch (...) {
        // A pair is verified whole or not at all.
        for (const fs::path& file : written) {
            std::error_code ignored;
            fs::remove(file, ignored);
        }
        throw;
    }
    result_.path = result_.files.front().path;
}

ExportFolderLayout RunExporter::layout() const {
    if (request_.format == "pipeline") {
        return ExportFolderLayout::Pipeline;
    }
    return folder_->experts() > 1 ? ExportFolderLayout::Experts : ExportFolderLayout::Transformer;
}

fs::path RunExporter::expert_folder(const fs::path& staged, int expert) const {
    return layout() == ExportFolderLayout::Transformer ? staged
                                                       : staged / run_experts::folder_name(expert);
}

void RunExporter::export_folder() {
    std::vector<std::string> folders;
    for (int expert = 0; expert < folder_->experts(); ++expert) {
        folders.push_back(run_experts::folder_name(expert));
    }
    std::vector<std::string> allowed = folders;
    if (layout() == ExportFolderLayout::Pipeline) {
        const std::vector<std::string> parts = folder_->pipeline_parts();
        allowed.insert(allowed.end(), parts.begin(), parts.end());
    }
    const fs::path destination = folder_destination(request_.out, layout(), allowed);
    const fs::path staged = sibling(destination, ".partial");
    std::error_code ignored;
    remove_tree(staged, ignored); // a killed export's
    try {
        std::map<int, at::Tensor> expected;
        for (int expert = 0; expert < folder_->experts(); ++expert) {
            if (std::find(experts_.begin(), experts_.end(), expert) == experts_.end()) {
                // Left out: the base's own, so the folder still holds every expert.
                link_base_folder(folder_->transformer_folder(expert),
                                 expert_folder(staged, expert));
                continue;
            }
            if (!expected.empty()) {
                report_stage("load");
            }
            models::DiffusionTransformer model = run_model(expert);
            expected[expert] = probe_output(*folder_, *model);
            report_stage("write");
            if (!full_) {
                lora::merge_lora(*model);
            }
            folder_->save_transformer(*model, expert_folder(staged, expert));
        }
        if (layout() == ExportFolderLayout::Pipeline) {
            add_base_components(folder_->root(), staged, folder_->pipeline_parts());
        }

        report_stage("verify");
        // A pipeline is verified as a whole: every part the sampler needs opens.
        const std::unique_ptr<models::ModelFolder> pipeline =
            layout() == ExportFolderLayout::Pipeline ? models::open_model_folder(staged) : nullptr;
        for (const auto& [expert, output] : expected) {
            const fs::path written = expert_folder(destination, expert);
            const models::DiffusionTransformer reloaded =
                pipeline ? base_transformer(*pipeline, dtype_, expert)
                         : base_transformer(
                               *folder_->with_transformer(expert_folder(staged, expert), expert),
                               dtype_, expert);
            verify(written, expert, *reloaded, output);
        }
    } catch (...) {
        remove_tree(staged, ignored);
        throw;
    }
    move_into_place(staged, destination);
    result_.path = destination;
}

ExportResult RunExporter::write_export() {
    report_stage("load");
    run_ = open_run(request_);
    folder_ = models::open_model_folder(run_.base_model);
    full_ = run_.job.mode == "full";
    check_format();
    experts_ = experts_to_export(request_.expert, run_, *folder_, request_.run);
    tensors_ = tensors_by_expert(run_.checkpoint, folder_->experts());
    check_tensors();
    dtype_ = run_.job.precision == "fp32" ? c10::kFloat : c10::kBFloat16;
    result_.step = run_.checkpoint.state.step;
    if (request_.format == "merged" || request_.format == "pipeline") {
        export_folder();
    } else {
        export_adapters();
    }
    return result_;
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
    return RunExporter(request, progress).write_export();
}

} // namespace tuneframe::train
