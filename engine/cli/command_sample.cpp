// `sample`: text- or image-to-video from a pipeline folder, to MP4 and/or a tensor file.
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/media_support.h"
#include "engine/core/tensor_io.h"
#include "engine/core/video_tensors.h"
#include "engine/models/model_family.h"
#include "engine/models/streaming_weights.h"

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <iostream>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

std::int64_t whole_int64(Arguments& arguments, std::string_view name, double fallback,
                         double minimum) {
    const double value = arguments.number_option(name, fallback);
    if (value != std::floor(value) || value < minimum || value > 1e9) {
        arguments.fail(std::string(name) + " must be a whole number of at least " +
                       std::to_string(static_cast<long long>(minimum)) + ".");
    }
    return static_cast<std::int64_t>(value);
}

at::Tensor tensor_from(const fs::path& file, const std::map<std::string, at::Tensor>& tensors,
                       const std::string& name, bool required) {
    if (auto it = tensors.find(name); it != tensors.end()) {
        return it->second;
    }
    if (required) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + file.string() + "' has no tensor '" + name + "'.",
                          "Write it with `sample --save-tensors`, or name it " + name + ".");
    }
    return {};
}

// --image: a picture or video (its first frame, resized with Lanczos) or a safetensors file
// holding `image` [1, 3, H, W] in [0, 1].
at::Tensor load_image(const fs::path& file, std::int64_t height, std::int64_t width) {
    if (file.extension() == ".safetensors") {
        return tensor_from(file, core::read_tensors(file), "image", true).to(torch::kFloat);
    }
    return core::read_image_file(file, height, width);
}

// The dtype the models run in: what the transformer stores, except that the CPU has no fp16
// kernels, so an fp16 checkpoint runs in bf16 there.
c10::ScalarType default_dtype(const models::ModelFolder& folder, c10::Device device) {
    const c10::ScalarType stored =
        models::stored_dtype(core::SafetensorsCheckpoint(folder.transformer_folder()));
    return stored == c10::kHalf && device.is_cpu() ? c10::kBFloat16 : stored;
}

} // namespace

int run_sample(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path model = arguments.required_option("--model");
    models::SampleRequest request;
    request.prompt = arguments.required_option("--prompt");
    const std::optional<std::string> negative_prompt = arguments.option("--negative-prompt");
    const std::optional<std::string> image = arguments.option("--image");
    request.frames = whole_int64(arguments, "--frames", 0, 0);
    request.height = whole_int64(arguments, "--height", 0, 0);
    request.width = whole_int64(arguments, "--width", 0, 0);
    request.steps = static_cast<int>(whole_int64(arguments, "--steps", 50, 1));
    const double guidance = arguments.number_option("--guidance", std::nan(""));
    const double guidance_2 = arguments.number_option("--guidance-2", std::nan(""));
    const double flow_shift = arguments.number_option("--flow-shift", std::nan(""));
    request.dynamic_cfg = arguments.flag("--dynamic-cfg");
    request.sampler = arguments.option("--scheduler").value_or("");
    request.seed = static_cast<std::uint64_t>(whole_int64(arguments, "--seed", 42, 0));
    request.max_sequence_length =
        static_cast<int>(whole_int64(arguments, "--max-sequence-length", 0, 0));
    const std::optional<std::string> transformer = arguments.option("--transformer");
    const std::optional<std::string> transformer_2 = arguments.option("--transformer-2");
    const std::optional<std::string> lora = arguments.option("--lora");
    const std::optional<std::string> lora_2 = arguments.option("--lora-2");
    const double lora_scale = arguments.number_option("--lora-scale", std::nan(""));
    const std::optional<std::string> out = arguments.option("--out");
    const std::int64_t fps_option = whole_int64(arguments, "--fps", 0, 0);
    const std::optional<std::string> initial_latents = arguments.option("--initial-latents");
    const std::optional<std::string> save_tensors = arguments.option("--save-tensors");
    const std::optional<std::string> dtype = arguments.option("--dtype");
    const std::string device =
        arguments.option("--device").value_or(torch::cuda::is_available() ? "cuda" : "cpu");
    models::SamplerOptions options;
    options.vae_tiling = arguments.flag("--vae-tiling");
    options.vae_slicing = arguments.flag("--vae-slicing");
    arguments.finish();
    if (!out && !save_tensors) {
        arguments.fail("Say where the result goes: --out video.mp4 and/or --save-tensors FILE.");
    }
    if (!std::isnan(lora_scale) && !lora && !lora_2) {
        arguments.fail("--lora-scale needs --lora or --lora-2.");
    }
    if (out) {
        core::require_media_for_video(*out, core::engine_has_media());
    }

    std::unique_ptr<models::ModelFolder> folder = models::open_model_folder(model);
    if (transformer) {
        folder = folder->with_transformer(*transformer);
    }
    if (transformer_2) {
        folder = folder->with_transformer(*transformer_2, 1);
    }
    if (lora_2 && folder->experts() < 2) {
        throw core::Error(core::ErrorCode::BadInput,
                          "--lora-2 loads a LoRA into the second expert, and '" + model.string() +
                              "' has one transformer.",
                          "Give --lora-2 only for a Wan 2.2 A14B pipeline (the low-noise "
                          "expert's file, *_low_noise.safetensors); use --lora here.");
    }
    const models::SamplingDefaults defaults = folder->sampling_defaults();
    request.negative_prompt = negative_prompt.value_or(defaults.negative_prompt);
    request.guidance = std::isnan(guidance) ? defaults.guidance : guidance;
    if (!std::isnan(guidance_2)) {
        request.guidance_2 = guidance_2;
    }
    if (!std::isnan(flow_shift)) {
        request.flow_shift = flow_shift;
    }
    options.placement.device = models::parse_device(device);
    options.placement.dtype =
        dtype ? models::parse_dtype(*dtype) : default_dtype(*folder, options.placement.device);
    if (lora) {
        options.lora = fs::path(*lora);
    }
    if (lora_2) {
        options.lora_2 = fs::path(*lora_2);
    }
    options.lora_weight = std::isnan(lora_scale) ? 1.0 : lora_scale;
    if (initial_latents) {
        const auto tensors = core::read_tensors(*initial_latents);
        request.initial_latents = tensor_from(*initial_latents, tensors, "latents", true);
        request.image_latent_noise =
            tensor_from(*initial_latents, tensors, "image_latent_noise", false);
    }
    if (image) {
        const models::VideoShape own = folder->sample_shape();
        request.image = defaults.image_at_own_size
                            ? load_image(*image, 0, 0)
                            : load_image(*image, request.height > 0 ? request.height : own.height,
                                         request.width > 0 ? request.width : own.width);
    }
    request.record_tensors = save_tensors.has_value();

    const std::unique_ptr<models::VideoSampler> pipeline = folder->sampler(options);
    const auto started = std::chrono::steady_clock::now();
    context.events.phase("sample");
    std::string stage;
    models::SampleResult result =
        pipeline->generate(request, [&](const char* name, int done, int total) {
            if (stage != name) {
                stage = name;
                context.events.log("info", std::string("sample: ") + name);
            }
            if (stage == "denoise") {
                context.events.progress(done, total, "step");
            }
        });
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

    nlohmann::json summary = {{"frames", result.frames},
                              {"height", result.video.size(3)},
                              {"width", result.video.size(4)},
                              {"sampler", result.sampler},
                              {"steps", request.steps},
                              {"guidance", request.guidance},
                              {"dynamic_cfg", request.dynamic_cfg},
                              {"negative_prompt", request.negative_prompt},
                              {"seed", request.seed},
                              {"image_to_video", request.image.defined()},
                              {"seconds", seconds}};
    if (transformer) {
        summary["transformer"] = fs::absolute(*transformer).string();
    }
    if (transformer_2) {
        summary["transformer_2"] = fs::absolute(*transformer_2).string();
    }
    if (lora) {
        summary["lora"] = fs::absolute(*lora).string();
    }
    if (lora_2) {
        summary["lora_2"] = fs::absolute(*lora_2).string();
    }
    if (out) {
        const int fps = fps_option > 0 ? static_cast<int>(fps_option) : folder->default_fps();
        core::write_video_file(result.video[0], *out, fps);
        summary["video"] = fs::absolute(*out).string();
        summary["fps"] = fps;
    }
    if (save_tensors) {
        core::NamedTensors named(result.tensors.begin(), result.tensors.end());
        core::write_tensors(*save_tensors, named);
        summary["tensors"] = fs::absolute(*save_tensors).string();
    }
    context.events.done("ok", summary);
    return 0;
}

} // namespace tuneframe::cli
