#pragma once

// What the trainer's tests share: a small in-memory dataset, a job for the tiny pipeline and the
// events a run wrote.
#include "common/training_job.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/train/sampling/training_dataset.h"
#include "engine/train/trainer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::train::test_support {

// Four samples in two buckets, with fixed moments and prompts.
class MemoryDataset : public TrainingDataset {
public:
    MemoryDataset();
    std::int64_t size() const override { return static_cast<std::int64_t>(examples_.size()); }
    std::string bucket(std::int64_t index) const override { return index < 2 ? "a" : "b"; }
    TrainingExample load(std::int64_t index) const override;
    std::string fingerprint() const override { return "memory-4"; }

private:
    std::vector<TrainingExample> examples_;
};

// A LoRA job on the tiny pipeline: fp32 on the CPU, batch 2, rank 4, a checkpoint every 2 steps.
common::TrainingJob small_job(std::int64_t steps, double lr);

// Runs `job` on the tiny pipeline and a MemoryDataset in `run`, appending its events to
// run/events.jsonl.
TrainResult run_trainer(const common::TrainingJob& job, const std::filesystem::path& run,
                        CommandChannel* commands = nullptr,
                        dist::DistributedContext* context = nullptr);

// The diffusion loss of `transformer` on one fixed batch: MemoryDataset's first sample four
// times at timesteps 100, 400, 700 and 950 with seeded noise, without gradients. Lower after
// training on that dataset.
double fixed_batch_loss(models::cogvideox::CogVideoXTransformer3DModel& transformer);

// The events a run wrote, one JSON object per line.
std::vector<nlohmann::json> read_events(const std::filesystem::path& file);

} // namespace tuneframe::train::test_support
