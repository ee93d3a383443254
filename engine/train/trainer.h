#pragma once

#include "common/training_job.h"
#include "engine/core/event_emitter.h"
#include "engine/train/command_channel.h"
#include "engine/train/sampling/training_dataset.h"

#include <filesystem>
#include <memory>
#include <string>

namespace tuneframe::dist {
class DistributedContext;
}

namespace tuneframe::models {
class ResidencyObserver;
}

namespace tuneframe::train {

struct TrainResult {
    std::string status; // "finished" or "stopped"
    std::int64_t steps = 0;
    double last_loss = 0;
    std::filesystem::path last_checkpoint;
};

// The training loop of a LoRA or full fine-tune (cogvideox-spec.md 6): samples the cached
// posteriors, draws noise and timesteps from keyed generators, steps the optimizer and the LR
// schedule, checkpoints atomically, validates by sampling with the model being trained, and
// obeys the studio's commands between steps. Resuming from the newest checkpoint continues the
// same numbers an uninterrupted run would produce.
class Trainer {
public:
    // `model_folder`: the pipeline; `run_folder`: checkpoints/, validation/ and state go there.
    // With `dist`, this is one rank of a data-parallel, ZeRO-2 or hybrid run (job.parallel):
    // rank 0 emits the events, reads `commands` and shares them with the others at step
    // boundaries, validates and writes checkpoints while the others wait.
    // `residency`: told what the transformers' weights do (swapped blocks, parked experts) and
    // which expert trains each micro-batch, under the experts' folder names; tests watch it.
    Trainer(common::TrainingJob job, std::filesystem::path model_folder,
            std::filesystem::path run_folder, std::unique_ptr<TrainingDataset> dataset,
            core::EventEmitter& events, CommandChannel* commands = nullptr,
            dist::DistributedContext* dist = nullptr,
            std::shared_ptr<models::ResidencyObserver> residency = nullptr);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    TrainResult run();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// The fields of a job that change the numbers a step computes (not how often it checkpoints or
// validates): a resumed run with another fingerprint says so in a log event.
std::string job_fingerprint(const common::TrainingJob& job);

} // namespace tuneframe::train
