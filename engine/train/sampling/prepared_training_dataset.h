#pragma once

#include "engine/data/prepared_index.h"
#include "engine/train/sampling/training_dataset.h"

#include <filesystem>

namespace tuneframe::train {

// The samples `prepare` cached, as listed in the run's prepared.jsonl.
class PreparedTrainingDataset : public TrainingDataset {
public:
    explicit PreparedTrainingDataset(data::PreparedIndex index);
    // Reads <run>/prepared.jsonl; a run that was never prepared is a BadInput error naming the
    // command to run.
    static std::unique_ptr<PreparedTrainingDataset> open(const std::filesystem::path& run,
                                                         const std::filesystem::path& job_file);

    std::int64_t size() const override;
    std::string bucket(std::int64_t index) const override;
    TrainingExample load(std::int64_t index) const override;
    std::string fingerprint() const override;

    const data::PreparedIndex& index() const { return index_; }

private:
    data::PreparedIndex index_;
};

} // namespace tuneframe::train
