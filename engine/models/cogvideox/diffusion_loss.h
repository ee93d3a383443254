#pragma once

#include "engine/diffusion/cogvideox_noise_schedule.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <ATen/Tensor.h>

namespace tuneframe::models::cogvideox {

// One batch of a CogVideoX training step, already on the device.
struct DiffusionBatch {
    at::Tensor latents;       // z0: [B, F, C, h, w], scaled by the VAE's scaling factor
    at::Tensor prompt_embeds; // [B, L, text_embed_dim]
    at::Tensor noise;         // like latents
    at::Tensor timesteps;     // [B] int64 in [0, num_train_timesteps)
    at::Tensor image_latents; // image-to-video only: [B, F, C, h, w] (first frame, zeros after)
    at::Tensor ofs;           // CogVideoX 1.5 I2V: [1] or [B]
};

// CogVideoX 1.5 packs latent frames in groups of `patch_t`; latents [B, F, C, h, w] whose F
// does not divide get copies of their first frame in front until it does, as THUDM's CogVideo
// fine-tuning pads them (diffusers' 1.5 pipelines likewise lengthen their own videos and drop
// the extra frames after decoding). Others come back as they are.
at::Tensor pad_to_temporal_patches(const at::Tensor& latents, std::int64_t patch_t);

// Everything the loss is made of, kept for tests and diagnostics.
struct DiffusionLoss {
    at::Tensor noisy_input;     // add_noise(z0, noise, t)
    at::Tensor model_output;    // the transformer's v prediction, float32
    at::Tensor model_pred;      // x0 predicted from it: sqrt(a) x_t - sqrt(1 - a) v
    at::Tensor weights;         // 1 / (1 - a_t), float32 [B]
    at::Tensor loss_per_sample; // [B]
    at::Tensor loss;            // 0-dim, what backward() starts from
};

// cogvideox-factory's objective (cogvideox-spec.md 6.3), term by term as it computes it: the
// v-prediction is turned into an x0 prediction and compared with z0 under the weight
// 1 / (1 - a_t), which is the plain v-MSE algebraically but not in rounding, so the formula is
// kept as written.
DiffusionLoss diffusion_loss(CogVideoXTransformer3DModel& transformer,
                             const diffusion::CogVideoXNoiseSchedule& schedule,
                             const DiffusionBatch& batch);

// The two halves of diffusion_loss, for pipeline stages, which run the transformer in parts.
// The transformer's inputs for `batch`: its latents noised at its timesteps (beside the image
// latents for image-to-video), which `noisy_input` receives.
CogVideoXTransformerInputs diffusion_inputs(const diffusion::CogVideoXNoiseSchedule& schedule,
                                            const DiffusionBatch& batch, at::Tensor& noisy_input);
// The loss of the transformer's v-prediction `prediction` for `batch`.
DiffusionLoss diffusion_loss_of(const diffusion::CogVideoXNoiseSchedule& schedule,
                                const DiffusionBatch& batch, const at::Tensor& noisy_input,
                                const at::Tensor& prediction);

} // namespace tuneframe::models::cogvideox
