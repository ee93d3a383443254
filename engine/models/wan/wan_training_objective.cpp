#include "engine/models/wan/wan_training_objective.h"

#include "engine/core/error.h"
#include "engine/models/keyed_generator.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using torch::indexing::Slice;

constexpr const char* kCondition = "condition";      // mask and condition latents, on channels
constexpr const char* kImageEmbeds = "image_embeds"; // CLIP tokens
constexpr const char* kFirstFrame = "first_frame";   // TI2V: the image's normalised latents
constexpr int kTrainTimesteps = 1000;

at::Tensor statistic(const std::vector<double>& values) {
    return torch::tensor(values, torch::kFloat64).to(torch::kFloat32).view({1, -1, 1, 1, 1});
}

// One draw from the generator keyed for `purpose`: uniform, or standard normal for the
// logit-normal density.
at::Tensor draw(std::uint64_t seed, const SampleDraw& s, DrawPurpose purpose,
                diffusion::TimestepDensity density) {
    at::Generator generator = keyed_generator(seed, s.sample, s.draw, purpose);
    return density == diffusion::TimestepDensity::LogitNormal
               ? at::randn({1}, generator, torch::kFloat32)
               : at::rand({1}, generator, torch::kFloat32);
}

} // namespace

WanTrainingObjective::WanTrainingObjective(const WanPipelineFolder& folder,
                                           const common::TrainingJob& job,
                                           const WeightsPlacement& placement, double model_shift)
    : folder_(folder)
    , variant_(folder.variant())
    , seed_(job.seed)
    , image_to_video_(job.task == "i2v")
    , placement_(placement)
    , density_(
          diffusion::parse_timestep_density(job.flow_matching.density, "flow_matching.density"))
    , weighting_(diffusion::parse_loss_weighting(job.flow_matching.loss_weighting,
                                                 "flow_matching.loss_weighting"))
    , latents_mean_(statistic(folder.vae_config.latents_mean))
    , latents_inverse_std_(1.0 / statistic(folder.vae_config.latents_std)) {
    const diffusion::FlowMatchingSampling whole = sampling(job.flow_matching, model_shift);
    whole_.emplace(whole);
    if (folder.experts() < 2) {
        experts_.emplace_back(whole);
        return;
    }
    for (const diffusion::NoiseExpert expert :
         {diffusion::NoiseExpert::High, diffusion::NoiseExpert::Low}) {
        diffusion::FlowMatchingSampling windowed = whole;
        windowed.window = diffusion::ExpertWindow::from_boundary_ratio(
            expert, *folder.boundary_ratio, kTrainTimesteps);
        experts_.emplace_back(windowed);
    }
    if (job.flow_matching.expert == "high_noise") {
        only_expert_ = 0;
    } else if (job.flow_matching.expert == "low_noise") {
        only_expert_ = 1;
    }
}

diffusion::FlowMatchingSampling
WanTrainingObjective::sampling(const common::FlowMatchingSettings& settings,
                               double model_shift) const {
    diffusion::FlowMatchingSampling s;
    s.source = diffusion::parse_sigma_source(settings.sigma_source, "flow_matching.sigma_source");
    s.density = density_;
    s.shift = settings.shift.value_or(model_shift);
    s.num_train_timesteps = kTrainTimesteps;
    s.logit_mean = settings.logit_mean;
    s.logit_std = settings.logit_std;
    s.mode_scale = settings.mode_scale;
    return s;
}

const diffusion::FlowMatchingTimestepSampler&
WanTrainingObjective::timestep_sampler(int expert) const {
    return experts_.at(static_cast<std::size_t>(expert));
}

// The expert whose noise levels a draw from the whole distribution falls in, so each expert
// trains on the share of steps its window holds of that distribution.
int WanTrainingObjective::choose_expert(const SampleDraw& first) const {
    if (experts_.size() < 2) {
        return 0;
    }
    if (only_expert_) {
        return *only_expert_;
    }
    const diffusion::TrainingTimesteps t =
        whole_->sample(draw(seed_, first, DrawPurpose::Expert, density_));
    const double timestep = t.timesteps.to(torch::kDouble).item<double>();
    return experts_[0].sampling().window->contains(timestep) ? 0 : 1;
}

at::Tensor WanTrainingObjective::normalized(const at::Tensor& latents) const {
    return (latents.to(torch::kFloat32).unsqueeze(0) - latents_mean_) * latents_inverse_std_;
}

at::Tensor WanTrainingObjective::condition(const TrainingExample& example,
                                           std::int64_t frames) const {
    if (!example.image_mean.defined()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "A prepared sample has no image-condition latents, which Wan "
                          "image-to-video training needs.",
                          "Run prepare again with the job's task set to i2v.");
    }
    // The pipelines condition on the posterior's mode.
    const at::Tensor latents = normalized(example.image_mean); // [1, C, F or 1, h, w]
    if (variant_ == WanVariant::TextImageToVideo) {
        return latents.narrow(2, 0, 1);
    }
    if (latents.size(2) != frames) {
        throw core::Error(core::ErrorCode::BadInput,
                          "A prepared sample's image condition has " +
                              std::to_string(latents.size(2)) + " latent frames for a clip of " +
                              std::to_string(frames) + ".",
                          "Run prepare again: the cache holds the condition of another model.");
    }
    // 4 mask channels, one per pixel frame of a latent frame: the first latent frame's are the
    // image, the others are to be made.
    at::Tensor mask = torch::zeros({1, 4, frames, latents.size(3), latents.size(4)});
    mask.narrow(2, 0, 1).fill_(1.0);
    return torch::cat({mask, latents}, 1);
}

TrainingBatch WanTrainingObjective::make_batch(const std::vector<SampleDraw>& samples) const {
    TrainingBatch batch;
    batch.expert = choose_expert(samples.front());
    const diffusion::FlowMatchingTimestepSampler& sampler = timestep_sampler(batch.expert);
    std::vector<at::Tensor> latents, prompts, noises, draws, conditions, images;
    const c10::ScalarType dtype = placement_.dtype;
    for (const SampleDraw& s : samples) {
        const TrainingExample& example = *s.example;
        at::Generator posterior = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::Posterior);
        const at::Tensor mean = example.latent_mean.to(torch::kFloat32);
        const at::Tensor eps = at::randn(mean.sizes(), posterior, mean.options());
        const at::Tensor z0 =
            normalized(mean + torch::exp(0.5 * example.latent_logvar.to(torch::kFloat32)) * eps);
        latents.push_back(z0.to(dtype));
        prompts.push_back(s.prompt_embeds.unsqueeze(0).to(dtype));
        at::Generator noise = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::Noise);
        noises.push_back(at::randn(z0.sizes(), noise, z0.options()).to(dtype));
        draws.push_back(draw(seed_, s, DrawPurpose::Timestep, density_));
        if (image_to_video_) {
            conditions.push_back(condition(example, z0.size(2)).to(dtype));
            if (variant_ == WanVariant::ImageToVideo) {
                if (!example.image_embeds.defined()) {
                    throw core::Error(core::ErrorCode::BadInput,
                                      "A prepared sample has no CLIP image tokens, which Wan 2.1 "
                                      "image-to-video training needs.",
                                      "Run prepare again with the job's task set to i2v.");
                }
                images.push_back(example.image_embeds.unsqueeze(0).to(dtype));
            }
        }
    }
    const c10::Device device = placement_.device;
    const diffusion::TrainingTimesteps t = sampler.sample(torch::cat(draws));
    batch.latents = torch::cat(latents).to(device);
    batch.prompt_embeds = torch::cat(prompts).to(device);
    batch.noise = torch::cat(noises).to(device);
    batch.sigmas = t.sigmas.to(device);
    batch.timesteps = t.timesteps.to(device);
    if (!conditions.empty()) {
        batch.conditions[variant_ == WanVariant::TextImageToVideo ? kFirstFrame : kCondition] =
            torch::cat(conditions).to(device);
    }
    if (!images.empty()) {
        batch.conditions[kImageEmbeds] = torch::cat(images).to(device);
    }
    return batch;
}

at::Tensor WanTrainingObjective::first_frame_mask(const at::Tensor& latents) const {
    at::Tensor mask = torch::ones({1, 1, latents.size(2), latents.size(3), latents.size(4)},
                                  latents.options().dtype(torch::kFloat32));
    mask.narrow(2, 0, 1).zero_();
    return mask;
}

TransformerInputs WanTrainingObjective::inputs(const TrainingBatch& batch,
                                               at::Tensor& noisy_input) const {
    const c10::ScalarType dtype = placement_.dtype;
    noisy_input =
        diffusion::flow_matching_noisy_input(batch.latents, batch.noise, batch.sigmas).to(dtype);
    TransformerInputs in;
    in.encoder_hidden_states = batch.prompt_embeds;
    in.timestep = batch.timesteps;
    in.hidden_states = noisy_input;
    if (auto it = batch.conditions.find(kCondition); it != batch.conditions.end()) {
        in.hidden_states = torch::cat({noisy_input, it->second}, 1);
    }
    if (auto it = batch.conditions.find(kFirstFrame); it != batch.conditions.end()) {
        // The image's latents in place of the first frame's, and timestep 0 on its tokens, as
        // WanImageToVideoPipeline(expand_timesteps=True) feeds the transformer.
        const at::Tensor mask = first_frame_mask(noisy_input);
        in.hidden_states = ((1 - mask) * it->second + mask * noisy_input).to(dtype);
        const at::Tensor token_mask =
            mask.index({0, 0, Slice(), Slice(torch::indexing::None, torch::indexing::None, 2),
                        Slice(torch::indexing::None, torch::indexing::None, 2)})
                .flatten();
        in.timestep = batch.timesteps.to(torch::kFloat32).view({-1, 1}) * token_mask.view({1, -1});
    }
    if (auto it = batch.conditions.find(kImageEmbeds); it != batch.conditions.end()) {
        in.encoder_hidden_states_image = it->second;
    }
    return in;
}

TrainingLoss WanTrainingObjective::loss(const TrainingBatch& batch, const at::Tensor& noisy_input,
                                        const at::Tensor& prediction) const {
    TrainingLoss out;
    out.noisy_input = noisy_input;
    out.model_output = prediction.to(torch::kFloat32);
    out.target = diffusion::flow_matching_target(batch.latents.to(torch::kFloat32),
                                                 batch.noise.to(torch::kFloat32));
    at::Tensor predicted = out.model_output;
    at::Tensor target = out.target;
    if (batch.conditions.count(kFirstFrame)) {
        // The first frame was given, not denoised.
        predicted = predicted.narrow(2, 1, predicted.size(2) - 1);
        target = target.narrow(2, 1, target.size(2) - 1);
    }
    const diffusion::FlowMatchingLoss loss = diffusion::flow_matching_loss(
        predicted, target, diffusion::loss_weighting(weighting_, batch.sigmas));
    out.loss_per_sample = loss.loss_per_sample;
    out.loss = loss.loss;
    return out;
}

std::int64_t WanTrainingObjective::tokens(const TrainingBatch& batch) const {
    const auto& patch = folder_.transformer_config().patch_size;
    const std::int64_t video = (batch.latents.size(2) / patch[0]) *
                               (batch.latents.size(3) / patch[1]) *
                               (batch.latents.size(4) / patch[2]);
    std::int64_t context = batch.prompt_embeds.size(1);
    if (auto it = batch.conditions.find(kImageEmbeds); it != batch.conditions.end()) {
        context += it->second.size(1);
    }
    return batch.latents.size(0) * (video + context);
}

} // namespace tuneframe::models::wan
