#pragma once

#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"
#include "engine/models/module_weights.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::diffusion {

class SeededNoise;

struct SampleRequest {
    std::string prompt;
    std::string negative_prompt; // diffusers' default: ""
    // Pixels; 0 takes the transformer config's sample size (49 x 480 x 720 for 1.0 models).
    std::int64_t frames = 0;
    std::int64_t height = 0;
    std::int64_t width = 0;
    int steps = 50;
    double guidance = 6.0; // classifier-free guidance runs when > 1
    bool dynamic_cfg = false;
    std::optional<SamplerKind> sampler; // unset: the pipeline's scheduler class
    std::uint64_t seed = 42;
    int max_sequence_length = 0; // 0: the transformer's max_text_seq_length
    // Optional, as diffusers' `latents=`: [1, F, C, h, w] at the padded latent frame count.
    at::Tensor initial_latents;
    // Image-to-video: [1, 3, height, width] in [0, 1]. Optionally the posterior's standard-normal
    // draw [1, C, 1, h, w] to use instead of the generator's.
    at::Tensor image;
    at::Tensor image_latent_noise;
    // Keep the intermediate tensors under the names ../shared/golden uses (prompt_embeds,
    // stepK.latents, decoded_raw, ...), on the CPU.
    bool record_tensors = false;
};

struct SampleResult {
    at::Tensor video; // [1, frames, 3, height, width] float32 in [0, 1], on the CPU
    std::map<std::string, at::Tensor> tensors;
    SamplerKind sampler = SamplerKind::Ddim;
    std::int64_t frames = 0; // of the video (after 1.5's padding frames are dropped)
};

struct PipelineOptions {
    models::WeightsPlacement placement; // dtype and device of every component
    std::optional<std::filesystem::path> lora;
    double lora_weight = 1.0; // diffusers' set_adapters weight: scale = weight * alpha / rank
    bool vae_tiling = false;
    bool vae_slicing = false;
    // diffusers' enable_model_cpu_offload for a borrowed transformer: it waits on the host
    // while T5 and the VAE run, and the VAE on the host while it denoises (validation during
    // training, where the transformer is resident anyway).
    bool offload_idle = false;
};

// Where a sampling call is: `stage` is "encode_prompt", "denoise" or "decode"; during "denoise"
// done/total count steps.
using SampleProgress = std::function<void(const char* stage, int done, int total)>;
// Called as each stage of generate_all begins ("text", "image" for image-to-video, "denoise",
// "decode") with the components that stage puts on the compute device, before it loads or moves
// them there, and once more with "" and none when the last has ended. With offload_idle a
// borrowed transformer is on the host at every call, so the device memory used between two
// calls is one stage's alone.
using StageHook = std::function<void(const char* stage, const std::vector<std::string>& on_device)>;

// CogVideoXPipeline and CogVideoXImageToVideoPipeline (diffusers 0.32) in one: text (and image)
// to video with classifier-free guidance, DDIM or DPM steps, and the VAE decode, reproducing the
// reference's numbers and its random draws for a seed. Components are loaded onto the device
// one after the other (T5, transformer, VAE) and each is dropped before the next is loaded, so
// the peak is the largest component rather than their sum. Several requests go through each
// stage together, so T5 and the VAE are loaded once for all of them.
class CogVideoXPipeline {
public:
    CogVideoXPipeline(PipelineFolder folder, PipelineOptions options);

    // Sample with this transformer (a model being trained) instead of loading one; it is
    // neither released nor given the pipeline's LoRA.
    void use_transformer(models::cogvideox::CogVideoXTransformer3DModel transformer);

    SampleResult generate(const SampleRequest& request, const SampleProgress& progress = {});
    // The same videos as one generate() per request, with each component loaded once.
    std::vector<SampleResult> generate_all(const std::vector<SampleRequest>& requests,
                                           const SampleProgress& progress = {},
                                           const StageHook& stages = {});

    const PipelineFolder& folder() const { return folder_; }
    const PipelineOptions& options() const { return options_; }

private:
    struct Geometry; // sizes derived from a request
    struct Pending;  // a request between stages
    Geometry geometry(const SampleRequest& request) const;
    Pending prepare_request(const SampleRequest& request) const;
    void encode_prompts(std::vector<Pending>& pending, const SampleProgress& progress) const;
    at::Tensor image_latents(const SampleRequest& request, const Geometry& geometry,
                             SeededNoise& noise, SampleResult& result,
                             models::AutoencoderKLCogVideoX& vae) const;
    void denoise(Pending& pending, models::cogvideox::CogVideoXTransformer3DModel& model,
                 const SampleProgress& progress) const;
    SampleResult finish(Pending& pending, models::AutoencoderKLCogVideoX& vae,
                        const SampleProgress& progress) const;
    models::cogvideox::CogVideoXTransformer3DModel transformer();
    models::AutoencoderKLCogVideoX load_vae() const;
    at::Tensor decode(const at::Tensor& latents, models::AutoencoderKLCogVideoX& vae) const;

    PipelineFolder folder_;
    PipelineOptions options_;
    models::cogvideox::CogVideoXTransformer3DModel borrowed_{nullptr};
};

} // namespace tuneframe::diffusion
