// WanPipeline's stages: loading, offloading, the denoising loop over the experts and the decode.
#include "engine/models/wan/pipeline_wan.h"

#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/wan/lora_keys.h"
#include "engine/models/wan/pipeline_wan_condition.h"
#include "engine/models/wan/pipeline_wan_pending.h"
#include "engine/models/wan/pipeline_wan_scheduler.h"
#include "engine/models/wan/transformer_checkpoint.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

// Sends borrowed transformers back where each was lent from when it goes out of scope, however
// sampling ends: the trained one to the device, an expert the trainer loaded for the pass (or
// parked) to the host, so the pass never ends with both experts on the device.
class BorrowedHome {
public:
    explicit BorrowedHome(std::vector<WanTransformer3DModel> models)
        : models_(std::move(models)) {
        for (const WanTransformer3DModel& model : models_) {
            devices_.push_back(model->patch_embedding->weight.device());
        }
    }
    ~BorrowedHome() {
        for (std::size_t i = 0; i < models_.size(); ++i) {
            try {
                models_[i]->to(devices_[i]);
            } catch (const std::exception&) {
                // Already unwinding from the error that matters, or out of device memory: the
                // trainer's next step reports the misplaced weights.
            }
        }
    }
    BorrowedHome(const BorrowedHome&) = delete;
    BorrowedHome& operator=(const BorrowedHome&) = delete;

private:
    std::vector<WanTransformer3DModel> models_;
    std::vector<c10::Device> devices_;
};

const char* expert_component(int expert) {
    return expert == 0 ? "transformer" : "transformer_2";
}

} // namespace

WanPipeline::WanPipeline(WanPipelineFolder folder, SamplerOptions options)
    : folder_(std::move(folder))
    , options_(std::move(options)) {
    check_placement(options_.placement);
}

std::vector<lora::LoRAKeyScheme> WanPipeline::lora_key_schemes() {
    return wan_lora_key_schemes();
}

void WanPipeline::use_transformers(std::vector<DiffusionTransformer> transformers) {
    if (static_cast<int>(transformers.size()) != folder_.experts()) {
        throw core::Error(core::ErrorCode::Internal, "the Wan pipeline of '" +
                                                         folder_.root.string() + "' samples with " +
                                                         std::to_string(folder_.experts()) +
                                                         " transformer(s), one per expert, not " +
                                                         std::to_string(transformers.size()));
    }
    std::vector<WanTransformer3DModel> borrowed;
    for (const DiffusionTransformer& transformer : transformers) {
        auto wan = std::dynamic_pointer_cast<WanTransformer3DModelImpl>(transformer);
        if (!wan) {
            throw core::Error(core::ErrorCode::Internal,
                              "the Wan pipeline samples with WanTransformer3DModel, not " +
                                  (transformer ? transformer->class_name() : std::string("null")));
        }
        borrowed.emplace_back(std::move(wan));
    }
    borrowed_ = std::move(borrowed);
}

WanTransformer3DModel WanPipeline::load_expert(int expert) const {
    TransformerLoadOptions load;
    load.dtype = options_.placement.dtype;
    load.device = options_.placement.device;
    WanTransformer3DModel model =
        load_wan_transformer(folder_.transformers.at(static_cast<std::size_t>(expert)), load);
    // As diffusers' load_lora_weights does by default, the LoRA goes into `transformer`; the
    // second one into `transformer_2`, as load_lora_weights(..., load_into_transformer_2=True).
    const std::optional<std::filesystem::path>& lora =
        expert == 0 ? options_.lora : options_.lora_2;
    if (lora) {
        lora::LoRALoadOptions lora_options;
        lora_options.weight = options_.lora_weight;
        lora_options.schemes = lora_key_schemes();
        lora::load_lora_weights(*model, *lora, lora_options);
        model->to(options_.placement.device, options_.placement.dtype);
    }
    model->eval();
    return model;
}

AutoencoderKLWan WanPipeline::load_vae() const {
    AutoencoderKLWan vae = load_autoencoder_kl_wan(folder_.vae, options_.placement);
    if (options_.vae_tiling) {
        vae->enable_tiling();
    }
    vae->enable_slicing(options_.vae_slicing);
    vae->eval();
    return vae;
}

void WanPipeline::step(Pending& p, std::size_t index, WanTransformer3DModelImpl& model) const {
    torch::NoGradGuard no_grad;
    const auto dtype = model.dtype();
    const c10::Device device = p.latents.device();
    const at::Tensor t = p.scheduler->timestep(index).to(device);
    const auto& patch = folder_.transformer_config().patch_size;
    at::Tensor input = p.latents;
    TransformerInputs inputs;
    if (folder_.expand_timesteps) {
        if (p.condition.defined()) {
            input = replace_first_frame(p.latents, p.condition, p.frame_mask);
        }
        inputs.timestep = per_token_timesteps(p.frame_mask, t, patch[1], patch[2]);
    } else {
        if (p.condition.defined()) {
            input = torch::cat({p.latents, p.condition}, 1); // [1, 2z + 4, F, h, w]
        }
        inputs.timestep = t.reshape({1});
    }
    inputs.hidden_states = input.to(dtype);
    inputs.encoder_hidden_states = p.prompt_embeds.to(dtype);
    if (p.image_embeds.defined()) {
        inputs.encoder_hidden_states_image = p.image_embeds.to(dtype);
    }
    const at::Tensor conditional = model.forward(inputs);
    at::Tensor prediction = conditional;
    at::Tensor unconditional;
    const int expert = p.experts[index];
    if (p.guided()) {
        inputs.encoder_hidden_states = p.negative_embeds.to(dtype);
        unconditional = model.forward(inputs);
        prediction = unconditional + p.guidance(expert) * (conditional - unconditional);
    }
    p.latents = p.scheduler->step(prediction, index, p.latents);

    const std::string name = "step" + std::to_string(index) + ".";
    p.keep(name + "transformer_input", inputs.hidden_states);
    p.keep(name + "timestep", inputs.timestep);
    p.keep(name + "noise_pred_cond", conditional);
    if (unconditional.defined()) {
        p.keep(name + "noise_pred_uncond", unconditional);
    }
    p.keep(name + "latents", p.latents);
}

void WanPipeline::run_expert_steps(Pending& p, int expert, WanTransformer3DModelImpl& model,
                                   const SampleProgress& progress) const {
    const int total = static_cast<int>(p.experts.size());
    if (p.next_step == 0) {
        tell_progress(progress, "denoise", 0, total);
    }
    while (p.next_step < p.experts.size() && p.experts[p.next_step] == expert) {
        step(p, p.next_step, model);
        ++p.next_step;
        tell_progress(progress, "denoise", static_cast<int>(p.next_step), total);
    }
}

void WanPipeline::denoise(std::vector<Pending>& pending, const SampleProgress& progress) {
    const c10::Device host(c10::kCPU);
    // Timesteps fall, so every request's steps go to `transformer` first and `transformer_2`
    // after: each expert is loaded once and runs its steps of every request.
    for (int expert = 0; expert < folder_.experts(); ++expert) {
        const bool needed = std::any_of(pending.begin(), pending.end(), [&](const Pending& p) {
            return std::find(p.experts.begin(), p.experts.end(), expert) != p.experts.end();
        });
        if (!needed) {
            continue;
        }
        WanTransformer3DModel model = borrowed_.empty()
                                          ? load_expert(expert)
                                          : borrowed_.at(static_cast<std::size_t>(expert));
        if (offloads()) {
            model->to(options_.placement.device);
        }
        for (Pending& p : pending) {
            run_expert_steps(p, expert, *model, progress);
        }
        if (offloads()) {
            model->to(host);
        }
        model = WanTransformer3DModel{nullptr};
        core::release_cached_device_memory();
    }
    for (const Pending& p : pending) {
        if (p.next_step != p.experts.size()) {
            throw core::Error(core::ErrorCode::Internal,
                              "the Wan experts' steps are not in order (high noise first)");
        }
    }
}

SampleResult WanPipeline::finish(Pending& p, const AutoencoderKLWanImpl& vae,
                                 const SampleProgress& progress) const {
    torch::NoGradGuard no_grad;
    tell_progress(progress, "decode", 0, 1);
    SampleResult& result = p.result;
    p.keep("final_latents", p.latents);
    at::Tensor latents = p.latents;
    if (folder_.expand_timesteps && p.condition.defined()) {
        latents = replace_first_frame(latents, p.condition, p.frame_mask);
    }
    const at::Tensor decode_input =
        denormalize_latents(latents.to(vae.placement().dtype), vae.config());
    p.keep("vae_decode_input", decode_input);
    const at::Tensor decoded = vae.decode(decode_input); // [1, 3, F, H, W] in [-1, 1]
    p.keep("decoded_raw", decoded);
    const at::Tensor video = (decoded.to(torch::kFloat) / 2.0 + 0.5).clamp(0.0, 1.0);
    p.keep("video", video.permute({0, 2, 3, 4, 1}));                            // [1, F, H, W, 3]
    result.video = video.permute({0, 2, 1, 3, 4}).to(torch::kCPU).contiguous(); // [1, F, 3, H, W]
    result.frames = result.video.size(1);
    tell_progress(progress, "decode", 1, 1);
    return std::move(result);
}

SampleResult WanPipeline::generate(const SampleRequest& request, const SampleProgress& progress) {
    return std::move(generate_all({request}, progress).front());
}

std::vector<SampleResult> WanPipeline::generate_all(const std::vector<SampleRequest>& requests,
                                                    const SampleProgress& progress,
                                                    const StageHook& stages) {
    std::vector<Pending> pending;
    pending.reserve(requests.size());
    for (const SampleRequest& request : requests) {
        pending.push_back(prepare_request(request));
    }
    auto announce = [&](const char* stage, const std::vector<std::string>& on_device) {
        if (stages) {
            stages(stage, on_device);
        }
    };
    // Only the component at work is on the device (diffusers' enable_model_cpu_offload): the
    // borrowed transformers wait on the host while the encoders and the VAE run, and the VAE
    // (loaded once for every request) while they denoise.
    const bool offload = offloads();
    const c10::Device host(c10::kCPU);
    BorrowedHome home(offload ? borrowed_ : std::vector<WanTransformer3DModel>{});
    if (offload) {
        for (WanTransformer3DModel& model : borrowed_) {
            model->to(host);
        }
    }

    // Each stage is announced before its component is loaded or moved in, and the end before
    // borrowed transformers go home, so what happens between two announcements is one stage's.
    announce("text", {"text_encoder"});
    encode_prompts(pending, progress);

    AutoencoderKLWan vae{nullptr};
    const bool any_image = std::any_of(pending.begin(), pending.end(),
                                       [](const Pending& p) { return p.request.image.defined(); });
    if (any_image) {
        const bool clip = folder_.transformer_config().image_dim.has_value();
        announce("image", clip ? std::vector<std::string>{"image_encoder", "vae"}
                               : std::vector<std::string>{"vae"});
        if (clip) {
            encode_clip_images(pending);
            core::release_cached_device_memory();
        }
        vae = load_vae();
        for (Pending& p : pending) {
            if (p.request.image.defined()) {
                encode_condition(p, *vae);
            }
        }
        if (offload) {
            vae->to(host);
        } else {
            vae = AutoencoderKLWan{nullptr};
        }
        core::release_cached_device_memory();
    }

    std::vector<std::string> experts;
    for (int expert = 0; expert < folder_.experts(); ++expert) {
        experts.emplace_back(expert_component(expert));
    }
    announce("denoise", experts);
    denoise(pending, progress);

    announce("decode", {"vae"});
    if (vae) {
        vae->to(options_.placement.device);
    } else {
        vae = load_vae();
    }
    std::vector<SampleResult> results;
    results.reserve(pending.size());
    for (Pending& p : pending) {
        results.push_back(finish(p, *vae, progress));
    }
    vae = AutoencoderKLWan{nullptr};
    core::release_cached_device_memory();
    announce("", {});
    return results;
}

} // namespace tuneframe::models::wan
