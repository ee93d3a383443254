#include "engine/models/cogvideox/diffusion_loss.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {

at::Tensor pad_to_temporal_patches(const at::Tensor& latents, std::int64_t patch_t) {
    const std::int64_t frames = latents.size(1);
    const std::int64_t missing = patch_t > 1 ? (patch_t - frames % patch_t) % patch_t : 0;
    if (missing == 0) {
        return latents;
    }
    const at::Tensor first = latents.narrow(1, 0, 1);
    return torch::cat({first.expand({-1, missing, -1, -1, -1}), latents}, 1);
}

CogVideoXTransformerInputs diffusion_inputs(const diffusion::CogVideoXNoiseSchedule& schedule,
                                            const DiffusionBatch& batch, at::Tensor& noisy_input) {
    noisy_input = schedule.add_noise(batch.latents, batch.noise, batch.timesteps);
    CogVideoXTransformerInputs inputs;
    inputs.hidden_states = batch.image_latents.defined()
                               ? torch::cat({noisy_input, batch.image_latents}, 2)
                               : noisy_input;
    inputs.encoder_hidden_states = batch.prompt_embeds;
    inputs.timestep = batch.timesteps;
    inputs.ofs = batch.ofs;
    return inputs;
}

DiffusionLoss diffusion_loss_of(const diffusion::CogVideoXNoiseSchedule& schedule,
                                const DiffusionBatch& batch, const at::Tensor& noisy_input,
                                const at::Tensor& prediction) {
    DiffusionLoss out;
    out.noisy_input = noisy_input;
    // accelerate hands the model's outputs back in float32 under mixed precision.
    out.model_output = prediction.to(torch::kFloat);
    out.model_pred = schedule.get_velocity(out.model_output, out.noisy_input, batch.timesteps);

    const at::Tensor table = schedule.alphas_cumprod().to(out.model_pred.device(), torch::kFloat);
    out.weights = 1 / (1 - table.index_select(0, batch.timesteps.to(table.device(), torch::kLong)));
    std::vector<std::int64_t> shape(static_cast<std::size_t>(out.model_pred.dim()), 1);
    shape[0] = -1;
    const at::Tensor weighted = out.weights.view(shape) * (out.model_pred - batch.latents).pow(2);
    out.loss_per_sample = weighted.reshape({batch.latents.size(0), -1}).mean(1);
    out.loss = out.loss_per_sample.mean();
    return out;
}

DiffusionLoss diffusion_loss(CogVideoXTransformer3DModel& transformer,
                             const diffusion::CogVideoXNoiseSchedule& schedule,
                             const DiffusionBatch& batch) {
    at::Tensor noisy_input;
    const CogVideoXTransformerInputs inputs = diffusion_inputs(schedule, batch, noisy_input);
    return diffusion_loss_of(schedule, batch, noisy_input, transformer->forward(inputs));
}

} // namespace tuneframe::models::cogvideox
