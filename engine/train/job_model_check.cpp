#include "engine/train/job_model_check.h"

#include "engine/core/error.h"
#include "engine/dist/parallel_mesh.h"
#include "engine/train/run_experts.h"

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

// memory.blocks_to_swap against the model's depth (a pipeline stage's, under pipeline
// parallelism), what a swapped full fine-tune and two experts in one process need, and
// activation offload something to offload.
void check_memory(const common::TrainingJob& job, const models::ModelFolder& model,
                  const std::string& origin) {
    const std::int64_t swapped = job.memory.blocks_to_swap;
    const std::int64_t blocks = model.num_blocks();
    if (swapped > blocks) {
        refuse("memory.blocks_to_swap",
               origin + ": memory.blocks_to_swap is " + std::to_string(swapped) + ", but " +
                   model.description() + " has " + std::to_string(blocks) + " transformer blocks.",
               "Swap at most " + std::to_string(blocks) +
                   " blocks (memory.blocks_to_swap); fewer keep more of the model on the GPU "
                   "and train faster.");
    }
    const bool hybrid = job.parallel.plan == "hybrid";
    const std::int64_t stages =
        hybrid ? std::clamp<std::int64_t>(job.parallel.pp_size, 1, blocks) : 1;
    if (swapped > 0 && stages > 1) {
        // Stages differ by a block at most; the first ones are the smallest.
        const auto [first, end] = dist::pipeline_stage_blocks(blocks, static_cast<int>(stages), 0);
        if (swapped > end - first) {
            refuse("memory.blocks_to_swap",
                   origin + ": memory.blocks_to_swap counts within a pipeline stage, and with " +
                       std::to_string(stages) + " stages (parallel.pp_size) the smallest of " +
                       model.description() + "'s runs " + std::to_string(end - first) + " of its " +
                       std::to_string(blocks) + " blocks, fewer than the " +
                       std::to_string(swapped) + " to swap.",
                   "Swap at most " + std::to_string(end - first) +
                       " blocks per stage (memory.blocks_to_swap), or use fewer stages.");
        }
    }
    if (swapped > 0 && job.mode == "full") {
        if (job.optimizer.name != "adamw-cpu-offload") {
            refuse("optimizer.name",
                   origin + ": a full fine-tune with block swap (memory.blocks_to_swap " +
                       std::to_string(swapped) +
                       ") keeps the swapped blocks' weights and gradients in host memory, where "
                       "their update must run, and optimizer " +
                       job.optimizer.name + " updates weights on the GPU.",
                   "Use optimizer adamw-cpu-offload (its update runs on the host, overlapped with "
                   "the copies), or set memory.blocks_to_swap to 0.");
        }
        const bool several = hybrid || dist::zero_stage_of(job.parallel) > 0;
        if (several) {
            refuse("memory.blocks_to_swap",
                   origin + ": a full fine-tune with block swap hands the swapped blocks' "
                            "gradients to the host, past the parallel plan's gradient exchange, "
                            "so it trains on one process (parallel.plan ddp, one GPU).",
                   "Set memory.blocks_to_swap to 0 for a multi-GPU plan, or train a LoRA.");
        }
    }
    if (job.memory.offload_activations && !job.gradient_checkpointing && swapped == 0) {
        refuse("memory.offload_activations",
               origin + ": memory.offload_activations moves the inputs that recomputed blocks "
                        "keep for backward to host memory, and with gradient_checkpointing off "
                        "and no block swapped no block recomputes.",
               "Turn gradient_checkpointing on (activation offload then saves what checkpointing "
               "still keeps on the GPU), or set memory.offload_activations to false.");
    }
    if (job.mode == "full" && run_experts::trained(job, model.experts()).size() > 1) {
        refuse("flow_matching.expert",
               origin + ": a full fine-tune of both experts of " + model.description() +
                   " in one process would keep both experts' trainable weights, gradients and "
                   "optimizer state: parking the idle one (memory.inactive_expert) moves only "
                   "frozen weights.",
               "Train one expert per run (flow_matching.expert high_noise, then low_noise), or "
               "train a LoRA of both.");
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
    check_memory(job, model, origin);
}

} // namespace tuneframe::train
