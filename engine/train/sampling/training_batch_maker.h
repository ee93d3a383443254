#pragma once

#include "common/training_job.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/train/diffusion_loss.h"
#include "engine/train/sampling/training_dataset.h"

#include <ATen/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>
#include <vector>

namespace tuneframe::train {

// Turns a step's sample indices into the batch the transformer trains on: latents sampled from
// each sample's VAE posterior, the noise, the timestep and the caption and image dropouts. Every
// draw is keyed by (seed, sample, draw), never by a running generator, so each pipeline stage,
// each resumed run and each plan makes the same batch for the same step.
class TrainingBatchMaker {
public:
    // `empty_prompt`: the encoded empty caption, needed only when the job drops captions.
    // `dataset` and `pipeline` must outlive the maker.
    TrainingBatchMaker(const TrainingDataset& dataset, const diffusion::PipelineFolder& pipeline,
                       const common::TrainingJob& job, at::Tensor empty_prompt, c10::Device device,
                       c10::ScalarType dtype);

    // The batch of `indices` at draw `draw` (one per micro-batch of the run), on the device in
    // the training dtype (timesteps int64).
    DiffusionBatch make(const std::vector<std::int64_t>& indices, std::uint64_t draw) const;

    // The tokens the transformer sees for `batch`: its video patches and prompt, per sample.
    std::int64_t tokens(const DiffusionBatch& batch) const;

private:
    // Image-to-video: the first frame's latents sampled from their posterior, scaled as the
    // pipeline feeds them, followed by zeros to the video's length (all zeros when dropped).
    at::Tensor image_latents(const TrainingExample& example, std::uint64_t sample,
                             std::uint64_t draw, const at::Tensor& video_latents) const;

    const TrainingDataset& dataset_;
    const diffusion::PipelineFolder& pipeline_;
    std::uint64_t seed_;
    double caption_dropout_;
    double image_dropout_;
    bool image_to_video_;
    at::Tensor empty_prompt_; // on the CPU
    c10::Device device_;
    c10::ScalarType dtype_;
};

} // namespace tuneframe::train
