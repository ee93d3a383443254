#pragma once

#include "engine/lora/lora_key_scheme.h"
#include "engine/models/video_sampler.h"
#include "engine/models/wan/transformer_wan.h"
#include "engine/models/wan/vae/autoencoder_kl_wan.h"
#include "engine/models/wan/wan_pipeline_folder.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// diffusers' WanPipeline and WanImageToVideoPipeline (0.40.0) in one, for every Wan variant the
// folder describes: Wan 2.1 text-to-video, Wan 2.1 image-to-video (CLIP tokens and a mask plus
// the condition video's latents), Wan 2.2 A14B with its two experts (`transformer` while
// t >= boundary_ratio * num_train_timesteps, `transformer_2` after, each with its own guidance)
// and Wan 2.2 TI2V (per-token timesteps; with an image, the first latent frame held at the
// image's latents). Classifier-free guidance runs the prompt and the negative prompt as two
// forwards, UniPC or Euler steps, and the VAE decodes; for a seed the numbers and the one random
// draw (the initial noise) are diffusers'. Components load onto the device one after another and
// each is dropped before the next (the text encoder; CLIP and the VAE; each expert; the VAE),
// and several requests go through each stage together.
class WanPipeline : public VideoSampler {
public:
    WanPipeline(WanPipelineFolder folder, SamplerOptions options);

    // One WanTransformer3DModel per expert of the folder, sampled with as they are: neither
    // released nor given the sampler's LoRA.
    void use_transformers(std::vector<DiffusionTransformer> transformers) override;

    // request.image may be of any size: it is resized to the video's as diffusers resizes a
    // picture (PIL Lanczos), while Wan 2.1's CLIP sees it as given, as in diffusers.
    SampleResult generate(const SampleRequest& request,
                          const SampleProgress& progress = {}) override;
    std::vector<SampleResult> generate_all(const std::vector<SampleRequest>& requests,
                                           const SampleProgress& progress = {},
                                           const StageHook& stages = {}) override;

    const WanPipelineFolder& folder() const { return folder_; }
    const SamplerOptions& options() const { return options_; }

    // The LoRA layouts besides diffusers/PEFT's that options().lora may use: Wan's own
    // (lora_keys.h: original Wan / ComfyUI, musubi-tuner, PEFT-keyed original names).
    static std::vector<lora::LoRAKeyScheme> lora_key_schemes();

private:
    struct Geometry; // sizes derived from a request
    struct Pending;  // a request between stages
    Geometry geometry(const SampleRequest& request) const;
    Pending prepare_request(const SampleRequest& request) const;
    void check_request(const SampleRequest& request) const;
    void encode_prompts(std::vector<Pending>& pending, const SampleProgress& progress) const;
    void encode_clip_images(std::vector<Pending>& pending) const;
    void encode_condition(Pending& pending, const AutoencoderKLWanImpl& vae) const;
    void denoise(std::vector<Pending>& pending, const SampleProgress& progress);
    void run_expert_steps(Pending& pending, int expert, WanTransformer3DModelImpl& model,
                          const SampleProgress& progress) const;
    void step(Pending& pending, std::size_t index, WanTransformer3DModelImpl& model) const;
    SampleResult finish(Pending& pending, const AutoencoderKLWanImpl& vae,
                        const SampleProgress& progress) const;
    WanTransformer3DModel load_expert(int expert) const;
    AutoencoderKLWan load_vae() const;
    int expert_at(const at::Tensor& t, double boundary) const;
    bool offloads() const { return options_.offload_idle && !borrowed_.empty(); }

    WanPipelineFolder folder_;
    SamplerOptions options_;
    std::vector<WanTransformer3DModel> borrowed_;
};

} // namespace tuneframe::models::wan
