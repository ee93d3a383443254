#include "engine/train/sampling/training_batch_maker.h"

#include "engine/models/keyed_generator.h"

#include <torch/torch.h>

#include <utility>

namespace tuneframe::train {

TrainingBatchMaker::TrainingBatchMaker(const TrainingDataset& dataset,
                                       const models::TrainingObjective& objective,
                                       const common::TrainingJob& job, at::Tensor empty_prompt)
    : dataset_(dataset)
    , objective_(objective)
    , seed_(job.seed)
    , caption_dropout_(job.dataset.caption_dropout)
    , empty_prompt_(empty_prompt.defined() ? empty_prompt.to(torch::kCPU)
                                           : std::move(empty_prompt)) {}

models::TrainingBatch TrainingBatchMaker::make(const std::vector<std::int64_t>& indices,
                                               std::uint64_t draw) const {
    std::vector<TrainingExample> examples;
    examples.reserve(indices.size()); // the draws point into it
    std::vector<models::SampleDraw> samples;
    for (std::int64_t index : indices) {
        examples.push_back(dataset_.load(index));
        models::SampleDraw sample;
        sample.example = &examples.back();
        sample.sample = static_cast<std::uint64_t>(index);
        sample.draw = draw;
        sample.prompt_embeds = examples.back().prompt_embeds;
        if (caption_dropout_ > 0) {
            at::Generator dropout = models::keyed_generator(seed_, sample.sample, draw,
                                                            models::DrawPurpose::CaptionDropout);
            if (at::rand({1}, dropout).item<double>() < caption_dropout_) {
                sample.prompt_embeds = empty_prompt_;
            }
        }
        samples.push_back(std::move(sample));
    }
    return objective_.make_batch(samples);
}

std::int64_t TrainingBatchMaker::tokens(const models::TrainingBatch& batch) const {
    return objective_.tokens(batch);
}

} // namespace tuneframe::train
