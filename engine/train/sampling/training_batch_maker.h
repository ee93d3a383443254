#pragma once

#include "common/training_job.h"
#include "engine/models/training_objective.h"
#include "engine/train/sampling/training_dataset.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <vector>

namespace tuneframe::train {

// Turns a step's sample indices into the batch the transformer trains on: each sample's
// prepared tensors, the caption dropout, and the family's objective for the rest (latents drawn
// from the posterior, noise, timesteps, image conditioning). Every draw is keyed by
// (seed, sample, draw), never by a running generator, so each pipeline stage, each resumed run
// and each plan makes the same batch for the same step.
class TrainingBatchMaker {
public:
    // `empty_prompt`: the encoded empty caption, needed only when the job drops captions.
    // `dataset` and `objective` must outlive the maker.
    TrainingBatchMaker(const TrainingDataset& dataset, const models::TrainingObjective& objective,
                       const common::TrainingJob& job, at::Tensor empty_prompt);

    // The batch of `indices` at draw `draw` (one per micro-batch of the run), on the device in
    // the training dtype.
    models::TrainingBatch make(const std::vector<std::int64_t>& indices, std::uint64_t draw) const;

    // The tokens the transformer sees for `batch`: its video patches and prompt, per sample.
    std::int64_t tokens(const models::TrainingBatch& batch) const;

private:
    const TrainingDataset& dataset_;
    const models::TrainingObjective& objective_;
    std::uint64_t seed_;
    double caption_dropout_;
    at::Tensor empty_prompt_; // on the CPU
};

} // namespace tuneframe::train
