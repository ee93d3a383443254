#pragma once

#include <ATen/Tensor.h>

#include <cstdint>
#include <string>

namespace tuneframe::train {

// One prepared sample: the VAE posterior's moments (unscaled, unsampled: the trainer samples
// them every step, as cogvideox-factory does with --load_tensors) and the prompt embeddings.
struct TrainingExample {
    at::Tensor latent_mean;   // [C, F, h, w]
    at::Tensor latent_logvar; // [C, F, h, w]
    at::Tensor prompt_embeds; // [L, D]
    at::Tensor image_mean;    // image-to-video: the clean first frame's moments [C, 1, h, w]
    at::Tensor image_logvar;
};

// What the trainer reads: samples by index, each in a bucket; the prepared cache in practice,
// tensors in memory in tests.
class TrainingDataset {
public:
    virtual ~TrainingDataset() = default;
    virtual std::int64_t size() const = 0;
    // Samples of one bucket stack into one batch ("9x32x48").
    virtual std::string bucket(std::int64_t index) const = 0;
    virtual TrainingExample load(std::int64_t index) const = 0;
    // Changes when the samples change, so a resumed run can tell it is fed something else.
    virtual std::string fingerprint() const = 0;
};

} // namespace tuneframe::train
