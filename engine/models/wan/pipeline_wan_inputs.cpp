// WanPipeline's preparation of a request: its checks and sizes, the schedule, the initial noise,
// the prompt embeddings and the image conditions the denoising starts from.
#include "engine/models/wan/pipeline_wan.h"

#include "engine/core/error.h"
#include "engine/diffusion/seeded_noise.h"
#include "engine/models/clip/clip_image_processor.h"
#include "engine/models/clip/clip_vision_model.h"
#include "engine/models/wan/pipeline_wan_condition.h"
#include "engine/models/wan/pipeline_wan_pending.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

[[noreturn]] void refuse_request(const std::string& message, const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint);
}

std::string sizes_or_absent(const at::Tensor& tensor) {
    return tensor.defined() ? c10::str(tensor.sizes()) : std::string("absent");
}

} // namespace

void WanPipeline::check_request(const SampleRequest& request) const {
    const WanVariant variant = folder_.variant();
    const std::string model = "'" + folder_.root.string() + "'";
    if (variant == WanVariant::TextToVideo && request.image.defined()) {
        refuse_request(model + " is a text-to-video model; it takes no image.",
                       "Leave out --image, or use an image-to-video Wan model (Wan 2.1 I2V, "
                       "Wan 2.2 I2V-A14B or TI2V-5B).");
    }
    if ((variant == WanVariant::ImageToVideo || variant == WanVariant::ImageToVideoA14B) &&
        !request.image.defined()) {
        refuse_request(model + " is an image-to-video model; it needs an image.",
                       "Pass --image with the picture the video starts from.");
    }
    const at::Tensor& image = request.image;
    if (image.defined() && (image.dim() != 4 || image.size(0) != 1 || image.size(1) != 3 ||
                            !image.is_floating_point())) {
        refuse_request("The image must be one RGB picture [1, 3, height, width] in [0, 1], not " +
                           sizes_or_absent(image) + " " + c10::toString(image.scalar_type()) + ".",
                       "Give --image a picture file; any size is resized to the video's.");
    }
    if (request.guidance_2 && folder_.experts() == 1) {
        refuse_request(model + " has one transformer, so a second guidance scale has no "
                               "expert to apply to.",
                       "Leave out --guidance-2; it is for Wan 2.2 A14B's low-noise expert.");
    }
    if (request.steps < 1) {
        refuse_request("Sampling needs at least one step, not " + std::to_string(request.steps) +
                           ".",
                       "Use 40 to 50 steps for full quality, fewer for previews.");
    }
}

WanPipeline::Geometry WanPipeline::geometry(const SampleRequest& request) const {
    const std::int64_t spatial = folder_.spatial_scale();
    const std::int64_t temporal = folder_.temporal_scale();
    const auto& patch = folder_.transformer_config().patch_size;
    Geometry g;
    const VideoShape own = folder_.sample_shape();
    g.frames = request.frames > 0 ? request.frames : own.frames;
    g.height = request.height > 0 ? request.height : own.height;
    g.width = request.width > 0 ? request.width : own.width;
    if ((g.frames - 1) % temporal != 0) {
        refuse_request("Wan makes " + std::to_string(temporal) + "k+1 frames, not " +
                           std::to_string(g.frames) + ".",
                       "Ask for 81 frames (Wan's own length), or another " +
                           std::to_string(temporal) + "k+1 count such as 5, 17 or 49.");
    }
    const std::int64_t rows = spatial * patch[1];
    const std::int64_t columns = spatial * patch[2];
    if (g.height % rows != 0 || g.width % columns != 0) {
        refuse_request("A " + std::to_string(g.width) + "x" + std::to_string(g.height) +
                           " video cannot be made by '" + folder_.root.string() +
                           "': its width must be a multiple of " + std::to_string(columns) +
                           " and its height of " + std::to_string(rows) + ".",
                       "Use a size such as 832x480 or 1280x704, or round this one to those "
                       "multiples.");
    }
    g.latent_frames = (g.frames - 1) / temporal + 1;
    g.latent_height = g.height / spatial;
    g.latent_width = g.width / spatial;
    g.text_length =
        request.max_sequence_length > 0 ? request.max_sequence_length : kMaxSequenceLength;
    if (folder_.transformer_config().image_dim && g.text_length != kMaxSequenceLength) {
        refuse_request("The image-to-video transformer of '" + folder_.root.string() +
                           "' reads prompts of exactly " + std::to_string(kMaxSequenceLength) +
                           " tokens (it tells CLIP's tokens from the text's by that length), not " +
                           std::to_string(g.text_length) + ".",
                       "Leave the maximum sequence length at its default, " +
                           std::to_string(kMaxSequenceLength) + ".");
    }
    return g;
}

int WanPipeline::expert_at(const at::Tensor& t, double boundary) const {
    if (!folder_.boundary_ratio) {
        return 0;
    }
    // diffusers compares the timestep tensor with a Python float, which PyTorch does in float32.
    return static_cast<float>(t.item<double>()) >= static_cast<float>(boundary) ? 0 : 1;
}

WanPipeline::Pending WanPipeline::prepare_request(const SampleRequest& request) const {
    check_request(request);
    Pending p;
    p.request = request;
    p.g = geometry(request);
    const Geometry& g = p.g;
    const c10::Device device = options_.placement.device;

    p.scheduler = std::make_unique<WanScheduler>(folder_, request.sampler, request.flow_shift);
    // WanPipeline starts its steps at index 0; WanImageToVideoPipeline looks each timestep up.
    p.scheduler->set_timesteps(request.steps, !request.image.defined());
    p.result.sampler = p.scheduler->name();
    const double boundary = folder_.boundary_ratio.value_or(0.0) *
                            static_cast<double>(p.scheduler->num_train_timesteps());
    std::vector<std::int64_t> expert_numbers;
    for (std::size_t i = 0; i < p.scheduler->size(); ++i) {
        p.experts.push_back(expert_at(p.scheduler->timestep(i), boundary));
        expert_numbers.push_back(p.experts.back() + 1);
    }
    p.keep("timesteps", p.scheduler->timesteps());
    p.keep("sigmas", p.scheduler->sigmas());
    p.keep("expert", torch::tensor(expert_numbers, torch::kLong));

    const std::vector<std::int64_t> shape = {1, folder_.latent_channels(), g.latent_frames,
                                             g.latent_height, g.latent_width};
    if (request.initial_latents.defined()) {
        if (request.initial_latents.sizes() != at::IntArrayRef(shape)) {
            refuse_request("The initial latents must be " + c10::str(at::IntArrayRef(shape)) +
                               " for this size, not " + sizes_or_absent(request.initial_latents) +
                               ".",
                           "Record them at the same frames, height and width, or leave them out "
                           "to draw them from the seed.");
        }
        p.latents = request.initial_latents.to(device, torch::kFloat);
    } else {
        // The call's only random draw, float32 whatever the transformer's dtype.
        diffusion::SeededNoise noise(request.seed);
        p.latents = noise.randn(shape, torch::kFloat, device);
    }
    if (folder_.expand_timesteps) {
        p.frame_mask = latent_frame_mask(g.latent_frames, g.latent_height, g.latent_width,
                                         request.image.defined(), torch::TensorOptions(device));
        if (request.image.defined()) {
            p.keep("first_frame_mask", p.frame_mask);
        }
    }
    return p;
}

void WanPipeline::encode_prompts(std::vector<Pending>& pending,
                                 const SampleProgress& progress) const {
    WanPromptEncoder encoder(folder_.tokenizer, folder_.text_encoder, options_.placement);
    for (Pending& p : pending) {
        const int total = p.guided() ? 2 : 1;
        tell_progress(progress, "encode_prompt", 0, total);
        p.prompt_embeds = encoder.encode(p.request.prompt, p.g.text_length);
        p.keep("prompt_embeds", p.prompt_embeds);
        if (p.guided()) {
            p.negative_embeds = encoder.encode(p.request.negative_prompt, p.g.text_length);
            p.keep("negative_prompt_embeds", p.negative_embeds);
        }
        tell_progress(progress, "encode_prompt", total, total);
    }
    encoder.release();
}

void WanPipeline::encode_clip_images(std::vector<Pending>& pending) const {
    torch::NoGradGuard no_grad;
    const auto processor = clip::CLIPImageProcessor::from_folder(*folder_.image_processor);
    auto encoder = clip::load_clip_vision_model(*folder_.image_encoder, options_.placement);
    encoder->eval();
    for (Pending& p : pending) {
        if (!p.request.image.defined()) {
            continue;
        }
        // CLIP sees the picture as given, before the video's resize, as in diffusers.
        const at::Tensor pixels = processor.preprocess(image_to_rgb8(p.request.image));
        p.image_embeds = encoder->encode_image(pixels.to(options_.placement.device));
        p.keep("clip_pixel_values", pixels);
        p.keep("image_embeds", p.image_embeds);
    }
}

void WanPipeline::encode_condition(Pending& p, const AutoencoderKLWanImpl& vae) const {
    torch::NoGradGuard no_grad;
    const Geometry& g = p.g;
    const c10::Device device = options_.placement.device;
    const bool ti2v = folder_.expand_timesteps;
    const at::Tensor pixels = preprocess_condition_image(p.request.image, g.height, g.width)
                                  .to(device); // [1, 3, H, W] in [-1, 1]
    // TI2V encodes the image alone; Wan 2.1 the whole clip it starts (mid-grey after it).
    const at::Tensor video = ti2v ? pixels.unsqueeze(2) : first_frame_video(pixels, g.frames);
    p.keep(ti2v ? "image_vae_input" : "video_condition", video);
    const DiagonalGaussianDistribution posterior = vae.encode(video);
    const std::string prefix = ti2v ? "image_latent_" : "condition_latent_";
    p.keep(prefix + "mean", posterior.mean);
    p.keep(prefix + "logvar", posterior.logvar);
    // retrieve_latents(sample_mode="argmax"): the posterior's mode, no draw.
    const at::Tensor latents = normalize_latents(posterior.mode().to(torch::kFloat), vae.config());
    if (ti2v) {
        p.condition = latents;
    } else {
        const at::Tensor mask =
            first_frame_mask_channels(folder_.temporal_scale(), g.latent_frames, g.latent_height,
                                      g.latent_width, latents.options());
        p.condition = torch::cat({mask, latents}, 1); // [1, 4 + z, F, h, w]
    }
    p.keep("condition", p.condition);
}

} // namespace tuneframe::models::wan
