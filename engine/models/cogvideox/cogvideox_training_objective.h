#pragma once

#include "common/training_job.h"
#include "engine/diffusion/cogvideox_noise_schedule.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/module_weights.h"
#include "engine/models/training_objective.h"

namespace tuneframe::models::cogvideox {

// cogvideox-factory's objective (cogvideox-spec.md 6.3): latents sampled from each clip's
// posterior and scaled by the VAE's factor, an integer timestep drawn uniformly from the
// training schedule, the noise added as DDPM adds it, and the v-prediction compared as an x0
// prediction under the weight 1 / (1 - a_t) (diffusion_loss.h). Image-to-video puts the first
// frame's latents (noise-augmented by the posterior draw, zeros after the first frame, all zeros
// when dropped) beside the noise on the channels.
class CogVideoXTrainingObjective : public TrainingObjective {
public:
    CogVideoXTrainingObjective(const diffusion::PipelineFolder& folder,
                               const common::TrainingJob& job, const WeightsPlacement& placement);

    TrainingBatch make_batch(const std::vector<SampleDraw>& samples) const override;
    TransformerInputs inputs(const TrainingBatch& batch, at::Tensor& noisy_input) const override;
    TrainingLoss loss(const TrainingBatch& batch, const at::Tensor& noisy_input,
                      const at::Tensor& prediction) const override;
    std::int64_t tokens(const TrainingBatch& batch) const override;

private:
    // Image-to-video: the first frame's latents sampled from their posterior, scaled as the
    // pipeline feeds them, followed by zeros to the video's length (all zeros when dropped).
    at::Tensor image_latents(const SampleDraw& sample, const at::Tensor& video_latents) const;

    diffusion::PipelineFolder folder_;
    diffusion::CogVideoXNoiseSchedule schedule_;
    std::uint64_t seed_;
    double image_dropout_;
    bool image_to_video_;
    WeightsPlacement placement_;
};

} // namespace tuneframe::models::cogvideox
