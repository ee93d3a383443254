#pragma once

#include "engine/models/diffusion_transformer.h"
#include "engine/models/module_weights.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

// Sampling videos with a family's pipeline: what `sample`, validation during training and the
// benchmarks ask for, in terms every family understands.
namespace tuneframe::models {

struct SampleRequest {
    std::string prompt;
    std::string negative_prompt; // empty: the family's default (diffusers': "" for both)
    // Pixels; 0 takes the model's own sample size.
    std::int64_t frames = 0;
    std::int64_t height = 0;
    std::int64_t width = 0;
    int steps = 50;
    double guidance = 6.0; // classifier-free guidance runs when > 1
    // Two-expert models (Wan 2.2 A14B): the guidance of the low-noise expert; unset: `guidance`.
    std::optional<double> guidance_2;
    bool dynamic_cfg = false; // CogVideoX's cosine-ramped guidance
    std::string sampler;      // empty: the model folder's scheduler; else the family's names
    std::optional<double> flow_shift; // flow-matching families: unset takes the scheduler's
    std::uint64_t seed = 42;
    int max_sequence_length = 0; // 0: the family's text length
    // Optional, as diffusers' `latents=`: the initial noise in the family's latent layout.
    at::Tensor initial_latents;
    // Image-to-video: [1, 3, H, W] in [0, 1], at the video's size or, where the family's
    // SamplingDefaults::image_at_own_size says so, at the picture's own. Optionally the
    // posterior's standard-normal draw for the image latents to use instead of the generator's.
    at::Tensor image;
    at::Tensor image_latent_noise;
    // Keep the intermediate tensors under the names the golden sets use, on the CPU.
    bool record_tensors = false;
};

struct SampleResult {
    at::Tensor video; // [1, frames, 3, height, width] float32 in [0, 1], on the CPU
    std::map<std::string, at::Tensor> tensors;
    std::string sampler;     // the scheduler that ran
    std::int64_t frames = 0; // of the video
};

struct SamplerOptions {
    WeightsPlacement placement;                // dtype and device of every component
    std::optional<std::filesystem::path> lora; // into the (first) transformer
    // Two-expert models (Wan 2.2 A14B): a LoRA for the second, low-noise expert.
    std::optional<std::filesystem::path> lora_2;
    double lora_weight = 1.0; // diffusers' set_adapters weight: scale = weight * alpha / rank
    bool vae_tiling = false;
    bool vae_slicing = false;
    // diffusers' enable_model_cpu_offload for a borrowed transformer: it waits on the host
    // while the text encoder and the VAE run, and the VAE on the host while it denoises
    // (validation during training, where the transformer is resident anyway).
    bool offload_idle = false;
};

// Where a sampling call is: `stage` is "encode_prompt", "denoise" or "decode"; during "denoise"
// done/total count steps.
using SampleProgress = std::function<void(const char* stage, int done, int total)>;
// Called as each stage of generate_all begins ("text", "image" for image-to-video, "denoise",
// "decode") with the components that stage puts on the compute device, before it loads or moves
// them there, and once more with "" and none when the last has ended.
using StageHook = std::function<void(const char* stage, const std::vector<std::string>& on_device)>;

// A family's text/image-to-video pipeline. Components load onto the device one after the other
// and each is dropped before the next, so the peak is the largest component rather than their
// sum; several requests go through each stage together.
class VideoSampler {
public:
    virtual ~VideoSampler() = default;

    // Sample with these transformers (a model being trained; one per expert) instead of
    // loading them; they are neither released nor given the sampler's LoRA.
    virtual void use_transformers(std::vector<DiffusionTransformer> transformers) = 0;

    virtual SampleResult generate(const SampleRequest& request,
                                  const SampleProgress& progress = {}) = 0;
    // The same videos as one generate() per request, with each component loaded once.
    virtual std::vector<SampleResult> generate_all(const std::vector<SampleRequest>& requests,
                                                   const SampleProgress& progress = {},
                                                   const StageHook& stages = {}) = 0;
};

} // namespace tuneframe::models
