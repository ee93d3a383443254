#include "engine/train/job_model_check.h"

#include "engine/core/error.h"

#include <algorithm>
#include <cstdint>

namespace tuneframe::train {
namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message,
                         const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint).with_field(field);
}

void check_task(const common::TrainingJob& job, const models::ModelFolder& model,
                const std::string& origin) {
    if (job.task == "i2v" && !model.supports("i2v")) {
        refuse("task",
               origin + ": the job trains image-to-video, but " + model.root().string() +
                   " is a text-to-video model (" + model.description() + ").",
               "Choose an image-to-video model (CogVideoX-5b-I2V, CogVideoX1.5-5B-I2V, "
               "Wan2.1-I2V, Wan2.2-TI2V-5B, Wan2.2-I2V-A14B), or set the task to t2v.");
    }
    if (job.task != "i2v" && !model.supports("t2v")) {
        refuse("task",
               origin + ": the job trains text-to-video, but " + model.root().string() +
                   " is an image-to-video model (its transformer needs an image latent).",
               "Set the task to i2v (every clip's first frame becomes its condition image), or "
               "choose a text-to-video model.");
    }
}

// The LoRA rank against the narrowest layer each target names.
void check_lora_rank(const common::TrainingJob& job, const models::ModelFolder& model,
                     const std::string& origin) {
    const std::unique_ptr<models::TransformerMemory> memory = model.transformer_memory();
    for (const std::string& target : job.lora.targets) {
        const std::optional<std::int64_t> width = memory->narrowest_target_width(target);
        if (width && job.lora.rank > *width) {
            refuse("lora.rank",
                   origin + ": LoRA rank " + std::to_string(job.lora.rank) + " does not fit the '" +
                       target + "' layers of this model, " + std::to_string(*width) +
                       " features wide.",
                   "Choose a LoRA rank of at most " + std::to_string(*width) + " (lora.rank).");
        }
    }
}

// The training buckets against what the model's VAE and patches take.
void check_buckets(const common::TrainingJob& job, const models::ModelFolder& model,
                   const std::string& origin) {
    for (const std::int64_t frames : job.dataset.frame_buckets) {
        if (auto problem = model.video_shape_problem(frames, 0, 0, false)) {
            refuse("dataset.frame_buckets", origin + ": training on " + problem->message,
                   problem->hint);
        }
    }
    for (const auto& [height, width] : job.dataset.resolution_buckets) {
        if (auto problem = model.video_shape_problem(0, height, width, false)) {
            refuse("dataset.resolution_buckets", origin + ": training on " + problem->message,
                   problem->hint);
        }
    }
}

// The sampler's own rules, checked before training rather than at the first validation,
// possibly hours in.
void check_validation(const common::TrainingJob& job, const models::ModelFolder& model,
                      const std::string& origin) {
    const common::ValidationSettings& v = job.validation;
    if (v.prompts.empty()) {
        return;
    }
    if (auto problem = model.video_shape_problem(v.frames, v.height, v.width, true)) {
        refuse("validation." + problem->dimension, origin + ": validation " + problem->message,
               problem->hint);
    }
    const std::vector<std::string> samplers = model.samplers();
    if (!v.sampler.empty() &&
        std::find(samplers.begin(), samplers.end(), v.sampler) == samplers.end()) {
        std::string choices;
        for (const std::string& sampler : samplers) {
            choices += (choices.empty() ? "" : ", ") + sampler;
        }
        refuse("validation.sampler",
               origin + ": validation.sampler is " + v.sampler + ", which " + model.description() +
                   " does not sample with.",
               "Use one of " + choices + ", or leave it out for the model's own.");
    }
}

} // namespace

void check_job_against_model(const common::TrainingJob& job, const models::ModelFolder& model,
                             const std::string& origin) {
    check_task(job, model, origin);
    if (job.mode == "lora") {
        check_lora_rank(job, model, origin);
    }
    check_buckets(job, model, origin);
    check_validation(job, model, origin);
}

} // namespace tuneframe::train
