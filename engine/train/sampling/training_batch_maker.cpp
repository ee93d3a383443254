#include "engine/train/sampling/training_batch_maker.h"

#include "engine/core/error.h"
#include "engine/train/sampling/keyed_generator.h"

#include <torch/torch.h>

#include <utility>

namespace tuneframe::train {

TrainingBatchMaker::TrainingBatchMaker(const TrainingDataset& dataset,
                                       const diffusion::PipelineFolder& pipeline,
                                       const common::TrainingJob& job, at::Tensor empty_prompt,
                                       c10::Device device, c10::ScalarType dtype)
    : dataset_(dataset)
    , pipeline_(pipeline)
    , seed_(job.seed)
    , caption_dropout_(job.dataset.caption_dropout)
    , image_dropout_(job.dataset.noised_image_dropout)
    , image_to_video_(job.task == "i2v")
    , empty_prompt_(empty_prompt.defined() ? empty_prompt.to(torch::kCPU) : std::move(empty_prompt))
    , device_(device)
    , dtype_(dtype) {}

DiffusionBatch TrainingBatchMaker::make(const std::vector<std::int64_t>& indices,
                                        std::uint64_t draw) const {
    std::vector<at::Tensor> latents, prompts, noises, timesteps, images;
    const double scale = pipeline_.vae_config.scaling_factor;
    for (std::int64_t index : indices) {
        const TrainingExample example = dataset_.load(index);
        const auto sample = static_cast<std::uint64_t>(index);
        at::Generator posterior = keyed_generator(seed_, sample, draw, DrawPurpose::Posterior);
        const at::Tensor mean = example.latent_mean.to(torch::kFloat);
        const at::Tensor eps = at::randn(mean.sizes(), posterior, mean.options());
        const at::Tensor z0 =
            (mean + torch::exp(0.5 * example.latent_logvar.to(torch::kFloat)) * eps) * scale;
        latents.push_back(
            pad_to_temporal_patches(z0.permute({1, 0, 2, 3}).unsqueeze(0).to(dtype_),
                                    pipeline_.transformer_config.patch_size_t.value_or(1)));

        at::Tensor prompt = example.prompt_embeds;
        if (caption_dropout_ > 0) {
            at::Generator dropout =
                keyed_generator(seed_, sample, draw, DrawPurpose::CaptionDropout);
            if (at::rand({1}, dropout).item<double>() < caption_dropout_) {
                prompt = empty_prompt_;
            }
        }
        prompts.push_back(prompt.unsqueeze(0).to(dtype_));

        at::Generator noise = keyed_generator(seed_, sample, draw, DrawPurpose::Noise);
        noises.push_back(
            at::randn(latents.back().sizes(), noise, latents.back().options().dtype(torch::kFloat))
                .to(dtype_));
        at::Generator timestep = keyed_generator(seed_, sample, draw, DrawPurpose::Timestep);
        timesteps.push_back(at::randint(0, pipeline_.scheduler_config.num_train_timesteps, {1},
                                        timestep, torch::TensorOptions(torch::kLong)));
        if (image_to_video_) {
            images.push_back(image_latents(example, sample, draw, latents.back()));
        }
    }
    DiffusionBatch batch;
    batch.latents = torch::cat(latents).to(device_);
    batch.prompt_embeds = torch::cat(prompts).to(device_);
    batch.noise = torch::cat(noises).to(device_);
    batch.timesteps = torch::cat(timesteps).to(device_);
    if (!images.empty()) {
        batch.image_latents = torch::cat(images).to(device_);
    }
    if (pipeline_.transformer_config.ofs_embed_dim) {
        batch.ofs = torch::full({1}, 2.0, torch::TensorOptions(dtype_).device(device_));
    }
    return batch;
}

at::Tensor TrainingBatchMaker::image_latents(const TrainingExample& example, std::uint64_t sample,
                                             std::uint64_t draw,
                                             const at::Tensor& video_latents) const {
    if (!example.image_mean.defined()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "A prepared sample has no first-frame latents, which image-to-video "
                          "training needs.",
                          "Run prepare again with the job's task set to i2v.");
    }
    const auto& vae = pipeline_.vae_config;
    at::Generator posterior = keyed_generator(seed_, sample, draw, DrawPurpose::ImageNoise);
    const at::Tensor mean = example.image_mean.to(torch::kFloat);
    const at::Tensor eps = at::randn(mean.sizes(), posterior, mean.options());
    at::Tensor first = mean + torch::exp(0.5 * example.image_logvar.to(torch::kFloat)) * eps;
    // Diffusers' pipelines divide by the factor for 1.5 (invert_scale_latents) and multiply
    // otherwise; training matches what inference will feed the model.
    first = vae.invert_scale_latents ? first / vae.scaling_factor : first * vae.scaling_factor;
    first = first.permute({1, 0, 2, 3}).unsqueeze(0).to(dtype_); // [1, 1, C, h, w]
    at::Tensor padded = torch::cat(
        {first,
         torch::zeros({1, video_latents.size(1) - 1, first.size(2), first.size(3), first.size(4)},
                      first.options())},
        1);
    at::Generator dropout = keyed_generator(seed_, sample, draw, DrawPurpose::ImageDropout);
    if (at::rand({1}, dropout).item<double>() < image_dropout_) {
        padded.zero_();
    }
    return padded;
}

std::int64_t TrainingBatchMaker::tokens(const DiffusionBatch& batch) const {
    const auto& config = pipeline_.transformer_config;
    const std::int64_t patch_t = config.patch_size_t.value_or(1);
    const std::int64_t video = (batch.latents.size(1) / patch_t) *
                               (batch.latents.size(3) / config.patch_size) *
                               (batch.latents.size(4) / config.patch_size);
    return batch.latents.size(0) * (video + batch.prompt_embeds.size(1));
}

} // namespace tuneframe::train
