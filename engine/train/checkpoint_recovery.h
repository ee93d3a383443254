#pragma once

#include "engine/train/training_checkpoint.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::dist {
class Communicator;
}

namespace tuneframe::train {

struct DamagedCheckpoint {
    std::filesystem::path folder;
    std::string reason; // this rank's error, or how many other ranks could not read it
};

struct ResumeChoice {
    std::optional<LoadedCheckpoint> loaded; // none: the run starts at step 0
    std::vector<DamagedCheckpoint> damaged; // newer than `loaded`, newest first
};

// The checkpoint a run resumes from: the newest one every rank of `group` (null: this process
// alone) can read. A damaged one (a file cut short, a broken header, a missing shard) neither
// blocks the resume nor is deleted: it is reported, and the next older one is tried. Rank 0's
// list decides the order, and all ranks settle on the same checkpoint even when only one
// rank's shard is broken. When checkpoints exist but none can be read, a BadInput error lists
// them with their reasons rather than silently starting over.
ResumeChoice choose_resume_checkpoint(const CheckpointStore& store, const StateFilter& wanted,
                                      dist::Communicator* group);

// Copies the checkpoint's trainable tensors into `trainable` (by name); a BadInput error when
// one is missing or has another shape, which means another job.
void restore_trainable(const LoadedCheckpoint& loaded, const core::NamedTensors& trainable);

// `current` becomes the checkpoint's state, except for the fingerprints of the job and the
// dataset it already holds (today's). Returns a warning for each that changed since.
std::vector<std::string> adopt_state(TrainerState& current, const LoadedCheckpoint& loaded);

} // namespace tuneframe::train
