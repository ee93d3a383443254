#include "engine/train/job_model_check.h"

#include "engine/core/error.h"
#include "engine/lora/lora_rank_check.h"

#include <cstdint>

namespace tuneframe::train {
namespace {

[[noreturn]] void refuse(const std::string& field, const std::string& message,
                         const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint).with_field(field);
}

void check_task(const common::TrainingJob& job, const diffusion::PipelineFolder& model,
                const std::string& origin) {
    const bool image_model = model.image_to_video();
    if (job.task == "i2v" && !image_model) {
        refuse("task",
               origin + ": the job trains image-to-video, but " + model.root.string() +
                   " is a text-to-video model (its transformer takes no image latents).",
               "Choose an image-to-video model (CogVideoX-5b-I2V, CogVideoX1.5-5B-I2V), or set "
               "the task to t2v.");
    }
    if (job.task != "i2v" && image_model) {
        refuse("task",
               origin + ": the job trains text-to-video, but " + model.root.string() +
                   " is an image-to-video model (its transformer needs an image latent).",
               "Set the task to i2v (every clip's first frame becomes its condition image), or "
               "choose a text-to-video model.");
    }
}

// The sampler's own rules (CogVideoXPipeline::geometry), checked before training rather than
// at the first validation, possibly hours in.
void check_validation(const common::TrainingJob& job, const diffusion::PipelineFolder& model,
                      const std::string& origin) {
    const common::ValidationSettings& v = job.validation;
    if (v.prompts.empty()) {
        return;
    }
    const std::int64_t frames_step = 2 * model.temporal_scale();
    if (v.frames > 0 && (v.frames - 1) % frames_step != 0) {
        refuse("validation.frames",
               origin + ": validation videos of " + std::to_string(v.frames) +
                   " frames cannot be made; CogVideoX makes " + std::to_string(frames_step) +
                   "k+1 frames.",
               "Use 49 (CogVideoX 1.0), 81 (1.5), or another count such as 9, 17 or 25.");
    }
    const std::int64_t multiple = model.spatial_scale() * model.transformer_config.patch_size;
    struct Side {
        const char* field;
        std::int64_t pixels;
        const char* measure;
    };
    for (const Side& side :
         {Side{"validation.height", v.height, "high"}, Side{"validation.width", v.width, "wide"}}) {
        if (side.pixels > 0 && side.pixels % multiple != 0) {
            refuse(side.field,
                   origin + ": validation videos " + std::to_string(side.pixels) + " pixels " +
                       side.measure + " cannot be made; sizes must be multiples of " +
                       std::to_string(multiple) + ".",
                   "Use 480 x 720 (CogVideoX 1.0) or 768 x 1360 (1.5), or 0 for the model's "
                   "own size.");
        }
    }
}

} // namespace

void check_job_against_model(const common::TrainingJob& job, const diffusion::PipelineFolder& model,
                             const std::string& origin) {
    check_task(job, model, origin);
    if (job.mode == "lora") {
        lora::check_lora_rank_fits(job.lora, model.transformer_config, origin);
    }
    check_validation(job, model, origin);
}

} // namespace tuneframe::train
