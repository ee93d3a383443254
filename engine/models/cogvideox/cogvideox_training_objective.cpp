#include "engine/models/cogvideox/cogvideox_training_objective.h"

#include "engine/core/error.h"
#include "engine/models/cogvideox/diffusion_loss.h"
#include "engine/models/keyed_generator.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {
namespace {

constexpr const char* kImageLatents = "image_latents";
constexpr const char* kOfs = "ofs";

// The members of the generic batch this family uses, as its loss functions take them.
DiffusionBatch diffusion_batch(const TrainingBatch& batch) {
    DiffusionBatch d;
    d.latents = batch.latents;
    d.prompt_embeds = batch.prompt_embeds;
    d.noise = batch.noise;
    d.timesteps = batch.timesteps;
    if (auto it = batch.conditions.find(kImageLatents); it != batch.conditions.end()) {
        d.image_latents = it->second;
    }
    if (auto it = batch.conditions.find(kOfs); it != batch.conditions.end()) {
        d.ofs = it->second;
    }
    return d;
}

} // namespace

CogVideoXTrainingObjective::CogVideoXTrainingObjective(const diffusion::PipelineFolder& folder,
                                                       const common::TrainingJob& job,
                                                       const WeightsPlacement& placement)
    : folder_(folder)
    , schedule_(folder.scheduler_config)
    , seed_(job.seed)
    , image_dropout_(job.dataset.noised_image_dropout)
    , image_to_video_(job.task == "i2v")
    , placement_(placement) {}

TrainingBatch CogVideoXTrainingObjective::make_batch(const std::vector<SampleDraw>& samples) const {
    std::vector<at::Tensor> latents, prompts, noises, timesteps, images;
    const double scale = folder_.vae_config.scaling_factor;
    const c10::ScalarType dtype = placement_.dtype;
    for (const SampleDraw& s : samples) {
        const TrainingExample& example = *s.example;
        at::Generator posterior = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::Posterior);
        const at::Tensor mean = example.latent_mean.to(torch::kFloat);
        const at::Tensor eps = at::randn(mean.sizes(), posterior, mean.options());
        const at::Tensor z0 =
            (mean + torch::exp(0.5 * example.latent_logvar.to(torch::kFloat)) * eps) * scale;
        latents.push_back(
            pad_to_temporal_patches(z0.permute({1, 0, 2, 3}).unsqueeze(0).to(dtype),
                                    folder_.transformer_config.patch_size_t.value_or(1)));
        prompts.push_back(s.prompt_embeds.unsqueeze(0).to(dtype));

        at::Generator noise = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::Noise);
        noises.push_back(
            at::randn(latents.back().sizes(), noise, latents.back().options().dtype(torch::kFloat))
                .to(dtype));
        at::Generator timestep = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::Timestep);
        timesteps.push_back(at::randint(0, folder_.scheduler_config.num_train_timesteps, {1},
                                        timestep, torch::TensorOptions(torch::kLong)));
        if (image_to_video_) {
            images.push_back(image_latents(s, latents.back()));
        }
    }
    const c10::Device device = placement_.device;
    TrainingBatch batch;
    batch.latents = torch::cat(latents).to(device);
    batch.prompt_embeds = torch::cat(prompts).to(device);
    batch.noise = torch::cat(noises).to(device);
    batch.timesteps = torch::cat(timesteps).to(device);
    if (!images.empty()) {
        batch.conditions[kImageLatents] = torch::cat(images).to(device);
    }
    if (folder_.transformer_config.ofs_embed_dim) {
        batch.conditions[kOfs] = torch::full({1}, 2.0, torch::TensorOptions(dtype).device(device));
    }
    return batch;
}

at::Tensor CogVideoXTrainingObjective::image_latents(const SampleDraw& s,
                                                     const at::Tensor& video_latents) const {
    const TrainingExample& example = *s.example;
    if (!example.image_mean.defined()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "A prepared sample has no first-frame latents, which image-to-video "
                          "training needs.",
                          "Run prepare again with the job's task set to i2v.");
    }
    const auto& vae = folder_.vae_config;
    at::Generator posterior = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::ImageNoise);
    const at::Tensor mean = example.image_mean.to(torch::kFloat);
    const at::Tensor eps = at::randn(mean.sizes(), posterior, mean.options());
    at::Tensor first = mean + torch::exp(0.5 * example.image_logvar.to(torch::kFloat)) * eps;
    // Diffusers' pipelines divide by the factor for 1.5 (invert_scale_latents) and multiply
    // otherwise; training matches what inference will feed the model.
    first = vae.invert_scale_latents ? first / vae.scaling_factor : first * vae.scaling_factor;
    first = first.permute({1, 0, 2, 3}).unsqueeze(0).to(placement_.dtype); // [1, 1, C, h, w]
    at::Tensor padded = torch::cat(
        {first,
         torch::zeros({1, video_latents.size(1) - 1, first.size(2), first.size(3), first.size(4)},
                      first.options())},
        1);
    at::Generator dropout = keyed_generator(seed_, s.sample, s.draw, DrawPurpose::ImageDropout);
    if (at::rand({1}, dropout).item<double>() < image_dropout_) {
        padded.zero_();
    }
    return padded;
}

TransformerInputs CogVideoXTrainingObjective::inputs(const TrainingBatch& batch,
                                                     at::Tensor& noisy_input) const {
    return diffusion_inputs(schedule_, diffusion_batch(batch), noisy_input);
}

TrainingLoss CogVideoXTrainingObjective::loss(const TrainingBatch& batch,
                                              const at::Tensor& noisy_input,
                                              const at::Tensor& prediction) const {
    const DiffusionLoss d =
        diffusion_loss_of(schedule_, diffusion_batch(batch), noisy_input, prediction);
    TrainingLoss out;
    out.noisy_input = d.noisy_input;
    out.model_output = d.model_output;
    out.target = batch.latents;
    out.loss_per_sample = d.loss_per_sample;
    out.loss = d.loss;
    return out;
}

std::int64_t CogVideoXTrainingObjective::tokens(const TrainingBatch& batch) const {
    const auto& config = folder_.transformer_config;
    const std::int64_t patch_t = config.patch_size_t.value_or(1);
    const std::int64_t video = (batch.latents.size(1) / patch_t) *
                               (batch.latents.size(3) / config.patch_size) *
                               (batch.latents.size(4) / config.patch_size);
    return batch.latents.size(0) * (video + batch.prompt_embeds.size(1));
}

} // namespace tuneframe::models::cogvideox
