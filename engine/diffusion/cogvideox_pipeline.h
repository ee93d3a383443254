#pragma once

#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"
#include "engine/models/module_weights.h"
#include "engine/models/video_sampler.h"

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

using SampleRequest = models::SampleRequest;
using SampleResult = models::SampleResult;
using PipelineOptions = models::SamplerOptions;
using SampleProgress = models::SampleProgress;
using StageHook = models::StageHook;

// CogVideoXPipeline and CogVideoXImageToVideoPipeline (diffusers 0.32) in one: text (and image)
// to video with classifier-free guidance, DDIM or DPM steps, and the VAE decode, reproducing the
// reference's numbers and its random draws for a seed. Components are loaded onto the device
// one after the other (T5, transformer, VAE) and each is dropped before the next is loaded, so
// the peak is the largest component rather than their sum. Several requests go through each
// stage together, so T5 and the VAE are loaded once for all of them.
class CogVideoXPipeline : public models::VideoSampler {
public:
    CogVideoXPipeline(PipelineFolder folder, PipelineOptions options);

    // Sample with this transformer (a model being trained) instead of loading one; it is
    // neither released nor given the pipeline's LoRA.
    void use_transformer(models::cogvideox::CogVideoXTransformer3DModel transformer);
    // The same through the family-independent interface: one CogVideoX transformer.
    void use_transformers(std::vector<models::DiffusionTransformer> transformers) override;

    SampleResult generate(const SampleRequest& request,
                          const SampleProgress& progress = {}) override;
    // The same videos as one generate() per request, with each component loaded once.
    std::vector<SampleResult> generate_all(const std::vector<SampleRequest>& requests,
                                           const SampleProgress& progress = {},
                                           const StageHook& stages = {}) override;

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
