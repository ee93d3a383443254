#pragma once

#include "engine/core/tensor_io.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tuneframe::train {

// Where a run is, beyond its tensors: enough to continue exactly. Random draws are keyed by
// (seed, sample, step), so no generator state is needed; the sampler position is the epoch and
// the batch within it.
struct TrainerState {
    std::int64_t step = 0; // optimizer steps completed
    std::int64_t epoch = 0;
    std::int64_t batch_in_epoch = 0; // batches of `epoch` consumed
    std::int64_t samples_seen = 0;
    double loss_scale = 1.0;         // fp16 dynamic loss scaling
    std::int64_t good_steps = 0;     // since the loss scale last changed
    std::string job_fingerprint;     // of the fields that change the numbers
    std::string dataset_fingerprint; // of the prepared samples
    // The loss of the last step, for a run asked to train once it has finished; NaN when
    // written by an older Tuneframe.
    double last_loss = std::numeric_limits<double>::quiet_NaN();

    nlohmann::json to_json() const;
    static TrainerState from_json(const nlohmann::json& json, const std::string& origin);
};

struct CheckpointContents {
    TrainerState state;
    core::NamedTensors trainable; // adapter or transformer parameters, by their model names
    core::NamedTensors optimizer; // Optimizer::state_tensors()
    // ZeRO-1/2: every rank's state, written by each rank beside the checkpoint; moved in
    // instead of `optimizer` when set, with an index naming the file of every state tensor.
    std::vector<std::filesystem::path> optimizer_shards;
    nlohmann::json job;
    std::map<std::string, std::string> trainable_metadata; // e.g. rank, alpha, targets
};

struct LoadedCheckpoint {
    std::filesystem::path folder;
    TrainerState state;
    std::map<std::string, at::Tensor> trainable;
    std::map<std::string, at::Tensor> optimizer; // the wanted state, from whichever shards
    std::vector<std::filesystem::path> optimizer_files_read;
};

// Which optimizer state tensors a loader needs (a ZeRO rank: those of its own parameters);
// empty means all.
using StateFilter = std::function<bool(const std::string& key)>;

// `<run>/checkpoints/step-N/`: trainable.safetensors, optimizer.safetensors (or, from a ZeRO-1/2
// run, optimizer-rank-R-of-N.safetensors per rank and optimizer.index.json, which names the file
// of each state tensor, so a rank of any later world size opens only the shards holding its
// parameters' state and reads only those tensors), trainer_state.json and job.json. A checkpoint
// is written into a temporary folder, every file fsynced, then the folder renamed into place, so a
// crash leaves either a whole checkpoint or none; only folders named step-N holding
// trainer_state.json count.
class CheckpointStore {
public:
    explicit CheckpointStore(std::filesystem::path run_folder);

    std::filesystem::path save(const CheckpointContents& contents);
    // Newest first. A run resumes through choose_resume_checkpoint (checkpoint_recovery.h),
    // which skips damaged ones.
    std::vector<std::filesystem::path> list() const;
    LoadedCheckpoint load(const std::filesystem::path& folder,
                          const StateFilter& wanted = {}) const;
    // Removes all but the newest `keep`. Each goes out of sight first (renamed, one atomic
    // step), so a kill halfway through deleting it leaves debris, never a step-N folder that
    // lacks files.
    void prune(std::int64_t keep) const;
    // What killed processes left behind, removed: temporary folders of checkpoints being
    // written or pruned by processes no longer alive, shards staged for a ZeRO checkpoint that
    // never completed, and step-N folders without their trainer state. The main rank calls it
    // before its first step, when no checkpoint of this run can be under way. Returns what it
    // removed.
    std::vector<std::filesystem::path> remove_debris() const;
    // Moves a checkpoint that cannot be read out of the list (to step-N.damaged, or
    // step-N.damaged-K when that exists), keeping its files for inspection. Returns where.
    std::filesystem::path set_aside(const std::filesystem::path& checkpoint) const;

    const std::filesystem::path& folder() const { return folder_; }
    static std::int64_t step_of(const std::filesystem::path& checkpoint); // -1: not one

private:
    std::filesystem::path folder_;
};

} // namespace tuneframe::train
