#include "engine/train/checkpoint_recovery.h"

#include "engine/core/error.h"
#include "engine/dist/communicator.h"

#include <torch/torch.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

// Rank 0's `index`-th checkpoint step, the same on every rank; -1 when it has no more.
std::int64_t candidate_step(const std::vector<fs::path>& mine, std::size_t index,
                            dist::Communicator* group) {
    const bool main = !group || group->rank() == 0;
    const std::int64_t step =
        main && index < mine.size() ? CheckpointStore::step_of(mine[index]) : -1;
    return group ? dist::broadcast_value(*group, step, 0) : step;
}

// How many ranks could not read the candidate (this one included when `failure` is set).
std::int64_t ranks_that_failed(const std::string& failure, dist::Communicator* group) {
    const double mine = failure.empty() ? 0.0 : 1.0;
    return static_cast<std::int64_t>(group ? dist::all_reduce_values(*group, {mine})[0] : mine);
}

std::string none_readable_message(const CheckpointStore& store,
                                  const std::vector<DamagedCheckpoint>& damaged) {
    std::string message = "No checkpoint in '" + store.folder().string() + "' can be read:";
    for (const DamagedCheckpoint& checkpoint : damaged) {
        message += "\n  " + checkpoint.folder.filename().string() + ": " + checkpoint.reason;
    }
    return message;
}

} // namespace

ResumeChoice choose_resume_checkpoint(const CheckpointStore& store, const StateFilter& wanted,
                                      dist::Communicator* group) {
    const std::vector<fs::path> mine = store.list();
    ResumeChoice choice;
    for (std::size_t i = 0;; ++i) {
        const std::int64_t step = candidate_step(mine, i, group);
        if (step < 0) {
            break;
        }
        const fs::path folder = store.folder() / ("step-" + std::to_string(step));
        std::optional<LoadedCheckpoint> loaded;
        std::string failure;
        try {
            loaded = store.load(folder, wanted);
        } catch (const core::Error& error) {
            failure = error.what();
        }
        const std::int64_t failed = ranks_that_failed(failure, group);
        if (failed == 0) {
            choice.loaded = std::move(loaded);
            return choice;
        }
        choice.damaged.push_back(
            {folder, failure.empty() ? std::to_string(failed) + " other rank(s) could not read it"
                                     : failure});
    }
    if (!choice.damaged.empty()) {
        throw core::Error(core::ErrorCode::BadInput, none_readable_message(store, choice.damaged),
                          "Restore the damaged checkpoints, or move them out of '" +
                              store.folder().string() + "' to start the run over from step 0.");
    }
    return choice;
}

void restore_trainable(const LoadedCheckpoint& loaded, const core::NamedTensors& trainable) {
    torch::NoGradGuard no_grad;
    for (const auto& [name, parameter] : trainable) {
        const auto it = loaded.trainable.find(name);
        if (it == loaded.trainable.end() || it->second.sizes() != parameter.sizes()) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The checkpoint '" + loaded.folder.string() +
                                  "' does not fit this job: '" + name +
                                  "' is missing or has another shape.",
                              "Resume with the job the run started with, or start a new run "
                              "folder.");
        }
        at::Tensor target = parameter;
        target.copy_(it->second);
    }
}

std::vector<std::string> adopt_state(TrainerState& current, const LoadedCheckpoint& loaded) {
    const std::string name = loaded.folder.filename().string();
    const TrainerState today = current;
    current = loaded.state;
    std::vector<std::string> warnings;
    if (current.job_fingerprint != today.job_fingerprint) {
        warnings.push_back("The job's training settings changed since " + name +
                           "; the run continues with the new ones.");
        current.job_fingerprint = today.job_fingerprint;
    }
    if (current.dataset_fingerprint != today.dataset_fingerprint) {
        warnings.push_back("The prepared dataset changed since " + name +
                           "; the run continues on the new samples.");
        current.dataset_fingerprint = today.dataset_fingerprint;
    }
    return warnings;
}

} // namespace tuneframe::train
