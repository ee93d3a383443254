#pragma once

#include "engine/models/diffusion_transformer.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

// What a family trains its transformer to predict, and from what: the batch made from prepared
// samples and keyed random draws, the transformer's inputs, and the loss.
namespace tuneframe::models {

// One prepared sample: the VAE posterior's moments (unscaled, unsampled: the trainer samples
// them every step, as cogvideox-factory does with --load_tensors) and the prompt embeddings,
// plus what the family's image conditioning needs.
struct TrainingExample {
    at::Tensor latent_mean;   // [C, F, h, w]
    at::Tensor latent_logvar; // [C, F, h, w]
    at::Tensor prompt_embeds; // [L, D]
    // Image-to-video: the moments of the condition the family prepares (the clean first frame
    // alone [C, 1, h, w], or Wan 2.1's first frame followed by zero frames [C, F, h, w]).
    at::Tensor image_mean;
    at::Tensor image_logvar;
    at::Tensor image_embeds; // Wan 2.1 I2V: the first frame's CLIP tokens [tokens, image_dim]
};

// A step's batch, on the device in the training dtype (timesteps as the family feeds them).
struct TrainingBatch {
    at::Tensor latents;       // z0 in the transformer's layout, scaled or normalised
    at::Tensor prompt_embeds; // [B, L, text_dim]
    at::Tensor noise;         // like latents
    at::Tensor timesteps;     // what the transformer is given: [B], or [B, tokens] per token
    at::Tensor sigmas;        // flow matching: [B] float32 noise levels
    // Conditioning the family adds: image latents beside the noise (I2V), the first-frame mask
    // (Wan 2.2 TI2V), the image encoder's tokens (Wan 2.1 I2V), CogVideoX 1.5's ofs.
    std::map<std::string, at::Tensor> conditions;
    int expert = 0; // the transformer that trains on this batch (two-expert models)
};

// One sample of a batch before stacking: its prepared tensors and what keys its draws.
struct SampleDraw {
    const TrainingExample* example = nullptr;
    at::Tensor prompt_embeds; // after caption dropout: [L, D]
    std::uint64_t sample = 0; // the dataset index
    std::uint64_t draw = 0;   // the micro-batch's draw number in the run
};

// Everything the loss is made of, kept for tests and diagnostics.
struct TrainingLoss {
    at::Tensor noisy_input;     // x_t
    at::Tensor model_output;    // the transformer's prediction, float32
    at::Tensor target;          // what it is compared with (after any conversion)
    at::Tensor loss_per_sample; // [B]
    at::Tensor loss;            // 0-dim, what backward() starts from
};

class TrainingObjective {
public:
    virtual ~TrainingObjective() = default;

    // The batch for these samples: latents drawn from each posterior, noise and timesteps, each
    // from the generator keyed by (seed, sample, draw, purpose), never from a running one, so
    // every plan, stage and resumed run makes the same batch for the same step.
    virtual TrainingBatch make_batch(const std::vector<SampleDraw>& samples) const = 0;
    // The transformer's inputs for `batch`: its latents noised at its timesteps (beside the
    // conditioning), which `noisy_input` receives.
    virtual TransformerInputs inputs(const TrainingBatch& batch, at::Tensor& noisy_input) const = 0;
    // The loss of the transformer's `prediction` for `batch`.
    virtual TrainingLoss loss(const TrainingBatch& batch, const at::Tensor& noisy_input,
                              const at::Tensor& prediction) const = 0;
    // The tokens the transformer sees for `batch`: video patches and prompt, all samples.
    virtual std::int64_t tokens(const TrainingBatch& batch) const = 0;

    // inputs(), the transformer, then loss(): one micro-batch's whole forward.
    TrainingLoss forward(DiffusionTransformerImpl& transformer, const TrainingBatch& batch) const;
};

} // namespace tuneframe::models
