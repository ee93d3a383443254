#include "engine/diffusion/cogvideox_pipeline.h"

#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/diffusion/classifier_free_guidance.h"
#include "engine/diffusion/cogvideox_ddim_scheduler.h"
#include "engine/diffusion/cogvideox_dpm_scheduler.h"
#include "engine/diffusion/prompt_encoder.h"
#include "engine/diffusion/seeded_noise.h"
#include "engine/lora/lora_weights.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <torch/torch.h>

#include <variant>

namespace tuneframe::diffusion {
namespace {

namespace cogvideox = models::cogvideox;
using torch::indexing::Slice;

[[noreturn]] void bad_request(const std::string& message, const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint);
}

std::string shape_or_absent(const at::Tensor& tensor) {
    return tensor.defined() ? c10::str(tensor.sizes()) : std::string("absent");
}

void record(SampleResult& result, bool wanted, const std::string& name, const at::Tensor& value) {
    if (wanted) {
        result.tensors[name] = value.detach().to(torch::kCPU).clone();
    }
}

// Moves a transformer to its device when it goes out of scope (nothing for a null one).
class TransformerHome {
public:
    TransformerHome(cogvideox::CogVideoXTransformer3DModel model, c10::Device device)
        : model_(std::move(model))
        , device_(device) {}
    ~TransformerHome() {
        if (!model_) {
            return;
        }
        try {
            model_->to(device_);
        } catch (const std::exception&) {
            // Already unwinding from the error that matters, or out of device memory: the
            // trainer's next step reports the misplaced weights.
        }
    }
    TransformerHome(const TransformerHome&) = delete;
    TransformerHome& operator=(const TransformerHome&) = delete;

private:
    cogvideox::CogVideoXTransformer3DModel model_;
    c10::Device device_;
};

void report(const SampleProgress& progress, const char* stage, int done, int total) {
    if (progress) {
        progress(stage, done, total);
    }
}

// One of the two schedulers, stepping the way the pipeline steps it.
class Sampler {
public:
    Sampler(SamplerKind kind, const CogVideoXSchedulerConfig& config)
        : scheduler_(kind == SamplerKind::Ddim ? Scheduler(CogVideoXDDIMScheduler(config))
                                               : Scheduler(CogVideoXDPMScheduler(config))) {}

    const std::vector<std::int64_t>& set_timesteps(int steps) {
        return std::visit(
            [&](auto& s) -> const std::vector<std::int64_t>& { return s.set_timesteps(steps); },
            scheduler_);
    }

    at::Tensor step(const at::Tensor& prediction, std::size_t index, const at::Tensor& latents,
                    SeededNoise& noise) {
        if (auto* ddim = std::get_if<CogVideoXDDIMScheduler>(&scheduler_)) {
            return ddim->step(prediction, ddim->timesteps()[index], latents).prev_sample;
        }
        auto& dpm = std::get<CogVideoXDPMScheduler>(scheduler_);
        const auto& timesteps = dpm.timesteps();
        const std::optional<std::int64_t> back =
            index > 0 ? std::optional<std::int64_t>(timesteps[index - 1]) : std::nullopt;
        SchedulerStepOutput out =
            dpm.step(prediction, previous_x0_, timesteps[index], back, latents, noise.source());
        previous_x0_ = out.pred_original_sample;
        return out.prev_sample;
    }

private:
    using Scheduler = std::variant<CogVideoXDDIMScheduler, CogVideoXDPMScheduler>;
    Scheduler scheduler_;
    std::optional<at::Tensor> previous_x0_;
};

} // namespace

struct CogVideoXPipeline::Geometry {
    std::int64_t frames; // pixel frames of the video returned
    std::int64_t height;
    std::int64_t width;
    std::int64_t latent_frames; // including 1.5's padding frames
    std::int64_t padding_frames;
    std::int64_t latent_height;
    std::int64_t latent_width;
    int text_length;
};

CogVideoXPipeline::CogVideoXPipeline(PipelineFolder folder, PipelineOptions options)
    : folder_(std::move(folder))
    , options_(std::move(options)) {
    models::check_placement(options_.placement);
}

void CogVideoXPipeline::use_transformer(cogvideox::CogVideoXTransformer3DModel transformer) {
    borrowed_ = std::move(transformer);
}

void CogVideoXPipeline::use_transformers(std::vector<models::DiffusionTransformer> transformers) {
    auto cogvideox = transformers.size() == 1
                         ? std::dynamic_pointer_cast<cogvideox::CogVideoXTransformer3DModelImpl>(
                               transformers.front())
                         : nullptr;
    if (!cogvideox) {
        throw core::Error(core::ErrorCode::Internal,
                          "the CogVideoX pipeline samples with one CogVideoX transformer");
    }
    borrowed_ = cogvideox::CogVideoXTransformer3DModel(std::move(cogvideox));
}

CogVideoXPipeline::Geometry CogVideoXPipeline::geometry(const SampleRequest& request) const {
    const auto& config = folder_.transformer_config;
    const std::int64_t spatial = folder_.spatial_scale();
    const std::int64_t temporal = folder_.temporal_scale();
    Geometry g{};
    g.frames = request.frames > 0 ? request.frames : config.sample_frames;
    g.height = request.height > 0 ? request.height : config.sample_height * spatial;
    g.width = request.width > 0 ? request.width : config.sample_width * spatial;
    const std::int64_t multiple = spatial * config.patch_size;
    if (g.height % multiple != 0 || g.width % multiple != 0) {
        bad_request("A " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                        " video cannot be sampled: width and height must be multiples of " +
                        std::to_string(multiple) + ".",
                    "Use a size such as 720x480 (CogVideoX 1.0) or 1360x768 (1.5).");
    }
    // The VAE decodes latent frames in pairs and keeps the first frame of an odd batch apart,
    // so only an odd latent count gives back the frames asked for: 8k+1 pixel frames.
    if (g.frames < 1 || (g.frames - 1) % (2 * temporal) != 0) {
        bad_request("CogVideoX makes " + std::to_string(2 * temporal) + "k+1 frames, not " +
                        std::to_string(g.frames) + ".",
                    "Ask for 49 frames (CogVideoX 1.0) or 81 (1.5), or another " +
                        std::to_string(2 * temporal) + "k+1 count such as 9, 17 or 25.");
    }
    g.latent_frames = (g.frames - 1) / temporal + 1;
    if (config.patch_size_t && g.latent_frames % *config.patch_size_t != 0) {
        // 1.5 pads the latent frames at the front and drops them again before decoding.
        g.padding_frames = *config.patch_size_t - g.latent_frames % *config.patch_size_t;
        g.latent_frames += g.padding_frames;
    }
    g.latent_height = g.height / spatial;
    g.latent_width = g.width / spatial;
    g.text_length = request.max_sequence_length > 0 ? request.max_sequence_length
                                                    : static_cast<int>(config.max_text_seq_length);
    if (request.steps < 1) {
        bad_request("Sampling needs at least one step, not " + std::to_string(request.steps) + ".",
                    "Use 50 steps for full quality, fewer for previews.");
    }
    return g;
}

cogvideox::CogVideoXTransformer3DModel CogVideoXPipeline::transformer() {
    if (borrowed_) {
        return borrowed_;
    }
    cogvideox::TransformerLoadOptions load;
    load.dtype = options_.placement.dtype;
    load.device = options_.placement.device;
    auto model = cogvideox::load_cogvideox_transformer(folder_.transformer, load);
    if (options_.lora) {
        lora::LoRALoadOptions lora_options;
        lora_options.weight = options_.lora_weight;
        lora::load_lora_weights(*model, *options_.lora, lora_options);
        model->to(options_.placement.device, options_.placement.dtype);
    }
    model->eval();
    return model;
}

at::Tensor CogVideoXPipeline::image_latents(const SampleRequest& request, const Geometry& g,
                                            SeededNoise& noise, SampleResult& result,
                                            models::AutoencoderKLCogVideoX& vae) const {
    const at::Tensor& image = request.image;
    if (!image.defined() || image.dim() != 4 || image.size(0) != 1 || image.size(1) != 3 ||
        image.size(2) != g.height || image.size(3) != g.width) {
        bad_request("Image-to-video needs the image as [1, 3, " + std::to_string(g.height) + ", " +
                        std::to_string(g.width) + "], not " + shape_or_absent(image) + ".",
                    "Give --image a picture file (it is resized to the video size) or a "
                    "tensor of the video's size.");
    }
    const auto dtype = options_.placement.dtype;
    const auto device = options_.placement.device;
    const auto& vae_config = folder_.vae_config;
    at::Tensor sample;
    {
        torch::NoGradGuard no_grad;
        const at::Tensor pixels = (2.0 * image - 1.0).to(device, dtype).unsqueeze(2);
        const models::DiagonalGaussianDistribution posterior = vae->encode(pixels);
        if (request.image_latent_noise.defined()) {
            if (request.image_latent_noise.sizes() != posterior.mean.sizes()) {
                bad_request("image_latent_noise must be " + shape_or_absent(posterior.mean) +
                                ", not " + shape_or_absent(request.image_latent_noise) + ".",
                            "Record it from the same model and image size, or leave it out.");
            }
            sample = posterior.sample_with_noise(
                request.image_latent_noise.to(device, posterior.mean.scalar_type()));
        } else {
            sample = posterior.sample(noise.generator());
        }
    }

    at::Tensor latents = sample.to(dtype).permute({0, 2, 1, 3, 4}); // [1, 1, C, h, w]
    latents = vae_config.invert_scale_latents ? (1.0 / vae_config.scaling_factor) * latents
                                              : vae_config.scaling_factor * latents;
    const std::int64_t unpadded = g.latent_frames;
    const at::Tensor padding = torch::zeros(
        {1, unpadded - 1, latents.size(2), latents.size(3), latents.size(4)}, latents.options());
    latents = torch::cat({latents, padding}, 1);
    if (const auto& patch_t = folder_.transformer_config.patch_size_t) {
        // diffusers repeats the first frame when the count is odd (never, once padded above).
        latents = torch::cat(
            {latents.index({Slice(), Slice(0, latents.size(1) % *patch_t)}), latents}, 1);
    }
    record(result, request.record_tensors, "image_latents", latents);
    return latents;
}

models::AutoencoderKLCogVideoX CogVideoXPipeline::load_vae() const {
    models::AutoencoderKLCogVideoX vae =
        models::load_autoencoder_kl_cogvideox(folder_.vae, options_.placement);
    if (options_.vae_tiling) {
        vae->enable_tiling();
    }
    vae->enable_slicing(options_.vae_slicing);
    return vae;
}

at::Tensor CogVideoXPipeline::decode(const at::Tensor& latents,
                                     models::AutoencoderKLCogVideoX& vae) const {
    torch::NoGradGuard no_grad;
    const at::Tensor scaled =
        (1.0 / folder_.vae_config.scaling_factor) * latents.permute({0, 2, 1, 3, 4});
    return vae->decode(scaled);
}

// One request between the stages of generate_all.
struct CogVideoXPipeline::Pending {
    SampleRequest request;
    Geometry g;
    SampleResult result;
    std::unique_ptr<SeededNoise> noise; // each request draws from its own seed, in its order
    at::Tensor prompt_embeds;
    at::Tensor negative_embeds;
    at::Tensor condition; // image-to-video: the first frame's latents
    at::Tensor latents;
    SamplerKind sampler = SamplerKind::Ddim;
    bool guided() const { return request.guidance > 1.0; }
};

SampleResult CogVideoXPipeline::generate(const SampleRequest& request,
                                         const SampleProgress& progress) {
    return std::move(generate_all({request}, progress).front());
}

std::vector<SampleResult>
CogVideoXPipeline::generate_all(const std::vector<SampleRequest>& requests,
                                const SampleProgress& progress, const StageHook& stages) {
    std::vector<Pending> pending;
    pending.reserve(requests.size());
    for (const SampleRequest& request : requests) {
        pending.push_back(prepare_request(request));
    }
    const bool image_to_video = folder_.image_to_video();
    auto announce = [&](const char* stage, std::vector<std::string> on_device) {
        if (stages) {
            stages(stage, on_device);
        }
    };
    // Only the component at work is on the device (diffusers' enable_model_cpu_offload): a
    // borrowed transformer waits on the host while T5 and the VAE run, the VAE (loaded once for
    // every request) while the transformer does.
    const bool offload = options_.offload_idle && borrowed_;
    const c10::Device host(c10::kCPU);
    // However sampling ends, a borrowed transformer goes back to the device the training that
    // lent it goes on with.
    TransformerHome home(offload ? borrowed_ : cogvideox::CogVideoXTransformer3DModel{nullptr},
                         options_.placement.device);
    if (offload) {
        borrowed_->to(host);
    }

    // Each stage is announced before its component is loaded or moved in, and the end before a
    // borrowed transformer goes home, so what happens between two announcements is one stage's
    // alone (the memory table's validation phases are read at them).
    announce("text", {"text_encoder"});
    encode_prompts(pending, progress);

    models::AutoencoderKLCogVideoX vae{nullptr};
    if (image_to_video) {
        announce("image", {"vae"});
        vae = load_vae();
        for (Pending& p : pending) {
            // The image's posterior draw comes before the initial noise, as in diffusers.
            p.condition = image_latents(p.request, p.g, *p.noise, p.result, vae);
        }
        if (offload) {
            vae->to(host);
        } else {
            vae = models::AutoencoderKLCogVideoX{nullptr};
        }
        core::release_cached_device_memory();
    }

    announce("denoise", {"transformer"});
    if (offload) {
        borrowed_->to(options_.placement.device);
    }
    {
        auto model = transformer();
        for (Pending& p : pending) {
            denoise(p, model, progress);
        }
    }
    if (offload) {
        borrowed_->to(host);
    }
    core::release_cached_device_memory();

    announce("decode", {"vae"});
    if (vae) {
        vae->to(options_.placement.device);
    } else {
        vae = load_vae();
    }
    std::vector<SampleResult> results;
    for (Pending& p : pending) {
        results.push_back(finish(p, vae, progress));
    }
    vae = models::AutoencoderKLCogVideoX{nullptr};
    core::release_cached_device_memory();
    announce("", {});
    return results;
}

CogVideoXPipeline::Pending CogVideoXPipeline::prepare_request(const SampleRequest& request) const {
    Pending p;
    p.request = request;
    p.g = geometry(request);
    const bool image_to_video = folder_.image_to_video();
    if (image_to_video != request.image.defined()) {
        bad_request(image_to_video ? "'" + folder_.root.string() +
                                         "' is an image-to-video model; it needs "
                                         "an image."
                                   : "'" + folder_.root.string() +
                                         "' is a text-to-video model; it takes no image.",
                    image_to_video ? "Pass --image with the first frame."
                                   : "Leave out --image, or use an image-to-video model.");
    }
    p.sampler = request.sampler.empty() ? folder_.default_sampler : parse_sampler(request.sampler);
    p.result.sampler = sampler_name(p.sampler);
    p.noise = std::make_unique<SeededNoise>(request.seed);
    return p;
}

void CogVideoXPipeline::encode_prompts(std::vector<Pending>& pending,
                                       const SampleProgress& progress) const {
    PromptEncoder encoder(folder_.tokenizer, folder_.text_encoder, options_.placement);
    for (Pending& p : pending) {
        const int total = p.guided() ? 2 : 1;
        report(progress, "encode_prompt", 0, total);
        p.prompt_embeds = encoder.encode(p.request.prompt, p.g.text_length);
        if (p.guided()) {
            p.negative_embeds = encoder.encode(p.request.negative_prompt, p.g.text_length);
        }
        const bool keep = p.request.record_tensors;
        record(p.result, keep, "prompt_embeds", p.prompt_embeds);
        if (p.guided()) {
            record(p.result, keep, "negative_prompt_embeds", p.negative_embeds);
        }
        report(progress, "encode_prompt", total, total);
    }
    encoder.release();
}

void CogVideoXPipeline::denoise(Pending& p, cogvideox::CogVideoXTransformer3DModel& model,
                                const SampleProgress& progress) const {
    const auto dtype = options_.placement.dtype;
    const auto device = options_.placement.device;
    const SampleRequest& request = p.request;
    const Geometry& g = p.g;
    const bool guided = p.guided();
    const bool keep = request.record_tensors;
    SampleResult& result = p.result;
    SeededNoise& noise = *p.noise;

    Sampler sampler(p.sampler, folder_.scheduler_config);
    const std::vector<std::int64_t> timesteps = sampler.set_timesteps(request.steps);
    record(result, keep, "timesteps", torch::tensor(timesteps, torch::kLong));
    const std::vector<std::int64_t> latent_shape = {
        1, g.latent_frames, folder_.vae_config.latent_channels, g.latent_height, g.latent_width};
    at::Tensor latents;
    if (request.initial_latents.defined()) {
        if (request.initial_latents.sizes() != at::IntArrayRef(latent_shape)) {
            bad_request("The initial latents must be " + c10::str(at::IntArrayRef(latent_shape)) +
                            " for this size, not " + shape_or_absent(request.initial_latents) + ".",
                        "Record them with --save-tensors at the same frames, height and width.");
        }
        latents = request.initial_latents.to(device, dtype);
    } else {
        latents = noise.randn(latent_shape, dtype, device);
    }

    const at::Tensor encoder_states =
        guided ? torch::cat({p.negative_embeds, p.prompt_embeds}) : p.prompt_embeds;
    const std::int64_t batch = guided ? 2 : 1;
    cogvideox::CogVideoXTransformerInputs inputs;
    inputs.encoder_hidden_states = encoder_states;
    inputs.image_rotary_emb =
        model->rotary_embeddings(g.latent_frames, g.latent_height, g.latent_width);
    if (inputs.image_rotary_emb) {
        inputs.image_rotary_emb->cos = inputs.image_rotary_emb->cos.to(device);
        inputs.image_rotary_emb->sin = inputs.image_rotary_emb->sin.to(device);
    }
    if (folder_.transformer_config.ofs_embed_dim) {
        inputs.ofs = torch::full({1}, 2.0, latents.options());
    }
    const at::Tensor condition_input =
        p.condition.defined() && guided ? torch::cat({p.condition, p.condition}) : p.condition;
    const int steps = static_cast<int>(timesteps.size());
    report(progress, "denoise", 0, steps);
    for (int i = 0; i < steps; ++i) {
        torch::NoGradGuard no_grad;
        at::Tensor input = guided ? torch::cat({latents, latents}) : latents;
        if (condition_input.defined()) {
            input = torch::cat({input, condition_input}, 2);
        }
        inputs.hidden_states = input;
        inputs.timestep =
            torch::full({batch}, timesteps[i], torch::TensorOptions(torch::kLong).device(device));
        at::Tensor prediction = model->forward(inputs).to(torch::kFloat);
        if (guided) {
            const double scale =
                request.dynamic_cfg
                    ? dynamic_guidance_scale(request.guidance, request.steps, timesteps[i])
                    : request.guidance;
            prediction = apply_guidance(prediction, scale);
        }
        latents = sampler.step(prediction, static_cast<std::size_t>(i), latents, noise).to(dtype);
        record(result, keep, "step" + std::to_string(i) + ".latents", latents);
        report(progress, "denoise", i + 1, steps);
    }
    record(result, keep, "final_latents", latents);
    p.latents = latents;
}

SampleResult CogVideoXPipeline::finish(Pending& p, models::AutoencoderKLCogVideoX& vae,
                                       const SampleProgress& progress) const {
    report(progress, "decode", 0, 1);
    SampleResult& result = p.result;
    const bool keep = p.request.record_tensors;
    const at::Tensor decoded = decode(p.latents.index({Slice(), Slice(p.g.padding_frames)}), vae);
    record(result, keep, "decoded_raw", decoded);
    result.video = (decoded.to(torch::kFloat) / 2.0 + 0.5)
                       .clamp(0.0, 1.0)
                       .permute({0, 2, 1, 3, 4})
                       .to(torch::kCPU)
                       .contiguous();
    record(result, keep, "video", result.video);
    result.frames = result.video.size(1);
    report(progress, "decode", 1, 1);
    return std::move(result);
}

} // namespace tuneframe::diffusion
