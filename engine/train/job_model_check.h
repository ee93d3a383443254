#pragma once

// What a job asks of its model, checked from the model folder's configs alone (no weights are
// loaded), so that a job the model cannot train is refused before an hour of latent caching
// rather than at its first step or first validation. `run` and `train` refuse with it at start;
// `estimate` (the studio's form, while the job is edited) and `train --check` report it. Each
// refusal names the job field at fault (core::Error::field) and the fix.

#include "common/training_job.h"
#include "engine/models/model_folder.h"

#include <string>

namespace tuneframe::train {

// Throws a BadInput core::Error, naming `origin` (the job file) and the field, when:
// - the task does not match the model (an I2V job on a text-to-video transformer, or back);
// - the LoRA rank is wider than a layer it targets;
// - a training bucket or the validation asks for a frame count or a size the model cannot take,
//   or validation names a sampler the family has not;
// - memory.blocks_to_swap is past the model's depth (or a pipeline stage's), or swaps a full
//   fine-tune whose optimizer cannot update on the host (only adamw-cpu-offload does) or that
//   runs on several processes; a full fine-tune trains both experts of a two-expert model.
void check_job_against_model(const common::TrainingJob& job, const models::ModelFolder& model,
                             const std::string& origin);

} // namespace tuneframe::train
