#pragma once

#include "common/training_job.h"
#include "engine/diffusion/flow_matching.h"
#include "engine/models/module_weights.h"
#include "engine/models/training_objective.h"
#include "engine/models/wan/wan_pipeline_folder.h"

#include <optional>
#include <vector>

namespace tuneframe::models::wan {

// Flow-matching training as finetrainers and musubi-tuner run it on Wan: latents sampled from
// each clip's posterior and normalised by the VAE's statistics, a noise level sigma drawn as the
// job's flow_matching settings say (the shifted table or formula, a uniform, logit-normal or
// mode density), x_t = (1 - sigma) x0 + sigma noise, the target noise - x0 and the (weighted)
// MSE. Image-to-video conditions as the pipelines do: Wan 2.1 and 2.2 I2V-A14B put a
// first-frame mask and the normalised latents of the first frame followed by zero frames
// (taken at the posterior's mode) beside the noise, Wan 2.1 adds the first frame's CLIP tokens;
// Wan 2.2 TI2V replaces the first latent frame with the image's, gives its tokens timestep 0
// and leaves it out of the loss. A two-expert model trains one expert per micro-batch: the one
// whose noise levels the batch's drawn level falls in (or the job's one expert, on its window).
class WanTrainingObjective : public TrainingObjective {
public:
    WanTrainingObjective(const WanPipelineFolder& folder, const common::TrainingJob& job,
                         const WeightsPlacement& placement, double model_shift);

    TrainingBatch make_batch(const std::vector<SampleDraw>& samples) const override;
    TransformerInputs inputs(const TrainingBatch& batch, at::Tensor& noisy_input) const override;
    TrainingLoss loss(const TrainingBatch& batch, const at::Tensor& noisy_input,
                      const at::Tensor& prediction) const override;
    std::int64_t tokens(const TrainingBatch& batch) const override;

    // The sampler of each expert's noise levels (one without experts).
    const diffusion::FlowMatchingTimestepSampler& timestep_sampler(int expert) const;

private:
    diffusion::FlowMatchingSampling sampling(const common::FlowMatchingSettings& settings,
                                             double model_shift) const;
    int choose_expert(const SampleDraw& first) const;
    at::Tensor normalized(const at::Tensor& latents) const; // [1, C, F, h, w], float32
    at::Tensor condition(const TrainingExample& example, std::int64_t frames) const;
    // Wan 2.2 TI2V image-to-video: 1 everywhere but the first latent frame, [1, 1, F, h, w].
    at::Tensor first_frame_mask(const at::Tensor& latents) const;

    WanPipelineFolder folder_;
    WanVariant variant_;
    std::uint64_t seed_;
    bool image_to_video_;
    WeightsPlacement placement_;
    diffusion::TimestepDensity density_;
    diffusion::LossWeighting weighting_;
    // The whole distribution, and with two experts each one's window of it.
    std::optional<diffusion::FlowMatchingTimestepSampler> whole_;
    std::vector<diffusion::FlowMatchingTimestepSampler> experts_;
    std::optional<int> only_expert_; // the job trains this expert alone
    at::Tensor latents_mean_;        // [1, C, 1, 1, 1] float32
    at::Tensor latents_inverse_std_;
};

} // namespace tuneframe::models::wan
