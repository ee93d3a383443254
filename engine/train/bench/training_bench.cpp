#include "engine/train/bench/training_bench.h"

#include "engine/core/device/cpu_allocation_tracker.h"
#include "engine/core/device/memory_stats.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/kept_attention.h"
#include "engine/diffusion/cogvideox_scheduler_config.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/diffusion_loss.h"
#include "engine/models/cogvideox/memory_estimate.h"
#include "engine/models/cogvideox/quantized_base.h"
#include "engine/models/module_weights.h"
#include "engine/train/bench/kineto_trace.h"
#include "engine/train/bench/step_phase_clock.h"
#include "engine/train/optim/clip_grad_norm.h"
#include "engine/train/optim/optimizer_factory.h"
#include "engine/train/validation_pass.h"

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <optional>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

namespace tuneframe::train {
namespace {

namespace cogvideox = models::cogvideox;

// Dense bf16 tensor-core peaks, for MFU: H100/H200 SXM 989 TFLOP/s, A100 312.
double peak_flops(const c10::Device& device) {
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda()) {
        const std::string name = at::cuda::getDeviceProperties(device.index())->name;
        if (name.find("H100") != std::string::npos || name.find("H200") != std::string::npos) {
            return 989e12;
        }
        if (name.find("A100") != std::string::npos) {
            return 312e12;
        }
    }
#endif
    (void)device;
    return 0;
}

// Matmul FLOPs of one forward (2 per multiply-add): the per-token Linears of every block, and
// the two attention products over the joint sequence.
struct ForwardFlops {
    double linears = 0;
    double attention = 0;
};
ForwardFlops forward_flops(const cogvideox::CogVideoXTransformer3DConfig& c,
                           std::int64_t video_tokens, std::int64_t text_tokens) {
    const double n = static_cast<double>(video_tokens + text_tokens);
    const double d = static_cast<double>(c.inner_dim());
    const auto layers = static_cast<double>(c.num_layers);
    return {layers * 2 * n * (4 * d * d + 8 * d * d), layers * 4 * n * n * d};
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

void synchronize(const c10::Device& device) {
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda()) {
        at::cuda::getCurrentCUDAStream(device.index()).synchronize();
    }
#endif
    (void)device;
}

// What the job memory estimate predicts for this step (weights, adapter state, activations).
std::int64_t estimate_bytes(const BenchSpec& spec, c10::ScalarType dtype,
                            lora::BaseQuantization quantization) {
    cogvideox::VideoShape shape;
    shape.frames = spec.frames;
    shape.height = spec.height;
    shape.width = spec.width;
    // The bench's text length, which need not be the model's max_text_seq_length.
    cogvideox::CogVideoXTransformer3DConfig config = spec.transformer;
    config.max_text_seq_length = spec.text_tokens;
    const auto estimate = cogvideox::estimate_lora_training_memory(
        config, static_cast<std::int64_t>(c10::elementSize(dtype)), shape, spec.rank,
        {cogvideox::checkpointed_block_count(config, spec.checkpointing, spec.checkpointed_blocks),
         spec.keep_attention},
        quantization);
    return static_cast<std::int64_t>(estimate.total());
}

// The pipeline folder `--validation` names, checked before any step runs.
diffusion::PipelineFolder open_validation_pipeline(const BenchSpec& spec) {
    diffusion::PipelineFolder pipeline = diffusion::PipelineFolder::open(spec.validation_pipeline);
    if (spec.transformer.in_channels != spec.transformer.out_channels ||
        pipeline.image_to_video()) {
        throw core::Error(core::ErrorCode::Usage,
                          "bench --validation measures text-to-video models only.",
                          "Use a text-to-video shape and pipeline folder (init-model --complete "
                          "writes one).");
    }
    if (pipeline.transformer_config.text_embed_dim != spec.transformer.text_embed_dim) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The pipeline in '" + spec.validation_pipeline + "' encodes text " +
                              std::to_string(pipeline.transformer_config.text_embed_dim) +
                              " wide, but the benched transformer takes " +
                              std::to_string(spec.transformer.text_embed_dim) + ".",
                          "Give the pipeline folder of the same architecture (init-model --arch "
                          "NAME --complete).");
    }
    return pipeline;
}

// One validation pass after the steps, with the peak of live tensor bytes read at each stage's
// end (a host sync per stage, outside the timed steps).
nlohmann::json bench_validation(const BenchSpec& spec, const models::ModelFolder& pipeline,
                                const models::DiffusionTransformer& model,
                                const models::WeightsPlacement& placement,
                                const std::function<std::int64_t()>& tensor_peak,
                                const std::function<void()>& reset_tensor_peak) {
    common::TrainingJob job;
    job.dataset.vae_tiling = true;
    job.dataset.vae_slicing = true;
    for (std::int64_t i = 0; i < spec.validation_prompts; ++i) {
        job.validation.prompts.push_back("a red fox trots through fresh snow at dusk, shot " +
                                         std::to_string(i + 1));
    }
    job.validation.steps = spec.validation_steps;
    job.validation.frames = spec.frames;
    job.validation.height = spec.height;
    job.validation.width = spec.width;
    const ValidationPass pass(pipeline, job, placement);
    nlohmann::json stage_peaks = nlohmann::json::object();
    std::int64_t peak = 0;
    std::string stage_now;
    auto boundary = [&](const std::string& stage) {
        if (!stage_now.empty()) {
            synchronize(placement.device);
            const std::int64_t bytes = tensor_peak();
            stage_peaks[stage_now] = bytes;
            peak = std::max(peak, bytes);
        }
        reset_tensor_peak();
        stage_now = stage;
    };
    double seconds = 0;
    pass.sample({model}, boundary, &seconds);
    return {{"steps", spec.validation_steps},
            {"prompts", spec.validation_prompts},
            {"seconds", seconds},
            {"stage_peak_bytes", stage_peaks},
            {"peak_tensor_bytes", peak}};
}

} // namespace

BenchSpec bench_shape(const std::string& name) {
    BenchSpec spec;
    spec.name = name;
    if (name == "bench-cpu") {
        spec.transformer = cogvideox::find_architecture("cogvideox-2b").transformer;
        spec.transformer.num_attention_heads = 8;
        spec.transformer.attention_head_dim = 64;
        spec.transformer.num_layers = 4;
        spec.transformer.text_embed_dim = 4096;
        spec.transformer.time_embed_dim = 512;
        // latents [1, 7, 16, 20, 30]: 25 frames of 160 x 240 pixels
        spec.frames = 25;
        spec.height = 160;
        spec.width = 240;
        spec.device = "cpu";
        spec.precision = "fp32";
        return spec;
    }
    if (name == "2b-49x480x720" || name == "5b-49x480x720") {
        spec.transformer =
            cogvideox::find_architecture(name[0] == '2' ? "cogvideox-2b" : "cogvideox-5b")
                .transformer;
        return spec;
    }
    throw core::Error(core::ErrorCode::Usage, "Unknown bench shape '" + name + "'.",
                      "Use bench-cpu, 2b-49x480x720 or 5b-49x480x720, or give --arch with "
                      "--frames/--height/--width.");
}

nlohmann::json run_bench(const BenchSpec& spec) {
    const c10::Device device =
        spec.device == "auto"
            ? (core::cuda_usable() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU))
            : models::parse_device(spec.device);
    const c10::ScalarType dtype = models::parse_dtype(spec.precision);
    models::check_placement({dtype, device});
    if (spec.steps < 2) {
        throw core::Error(core::ErrorCode::Usage, "bench needs at least 2 steps (one warm-up).");
    }
    core::select_attention_backend(spec.attention);
    const lora::BaseQuantization quantization = lora::parse_base_quantization(spec.quantize);
    std::optional<cogvideox::CogVideoXModelFolder> validation_pipeline;
    if (!spec.validation_pipeline.empty()) {
        validation_pipeline.emplace(open_validation_pipeline(spec));
    }
    // On the CPU the peak of live tensor bytes, the figure the memory estimate predicts (the
    // resident set also holds the program and the allocator's slack).
    std::optional<core::CpuAllocationTracker> cpu_tensors;
    if (device.is_cpu()) {
        cpu_tensors.emplace();
    }
    auto tensor_peak = [&] {
        return cpu_tensors ? cpu_tensors->peak_bytes() : core::memory_stats(device).peak;
    };
    auto reset_tensor_peak = [&] {
        if (cpu_tensors) {
            cpu_tensors->reset_peak();
        } else {
            core::reset_peak_memory(device);
        }
    };
    torch::manual_seed(0);
    cogvideox::CogVideoXTransformer3DModel model(spec.transformer, dtype);
    model->to(device);
    cogvideox::quantize_transformer_base(*model, quantization);
    lora::LoRAConfig lora_config;
    lora_config.rank = spec.rank;
    lora_config.alpha = static_cast<double>(spec.rank);
    lora::inject_lora(*model, lora_config);
    model->to(device);
    lora::freeze_all_but_lora(*model);
    model->set_checkpointed_blocks(cogvideox::checkpointed_block_count(
        model->config(), spec.checkpointing, spec.checkpointed_blocks));
    model->set_keep_attention(spec.keep_attention);
    model->train();
    NamedParameters trainable;
    std::int64_t trainable_count = 0;
    for (const auto& item : model->named_parameters()) {
        if (item.value().requires_grad()) {
            trainable.emplace_back(item.key(), item.value());
            trainable_count += item.value().numel();
        }
    }
    OptimizerOptions options;
    options.lr = 1e-4;
    auto optimizer = make_optimizer(spec.optimizer, trainable, options);

    diffusion::CogVideoXSchedulerConfig scheduler;
    scheduler.prediction_type = diffusion::PredictionType::VPrediction;
    scheduler.rescale_betas_zero_snr = true;
    scheduler.timestep_spacing = diffusion::TimestepSpacing::Trailing;
    const diffusion::CogVideoXNoiseSchedule schedule(scheduler);

    const std::int64_t latent_frames = (spec.frames - 1) / 4 + 1;
    const std::int64_t h = spec.height / 8;
    const std::int64_t w = spec.width / 8;
    const auto options_on = torch::TensorOptions(dtype).device(device);
    cogvideox::DiffusionBatch batch;
    batch.latents =
        torch::randn({1, latent_frames, spec.transformer.out_channels, h, w}, options_on);
    batch.noise = torch::randn_like(batch.latents);
    batch.prompt_embeds =
        torch::randn({1, spec.text_tokens, spec.transformer.text_embed_dim}, options_on);
    batch.timesteps = torch::tensor({500}, torch::TensorOptions(torch::kLong).device(device));
    if (spec.transformer.in_channels == 2 * spec.transformer.out_channels) {
        batch.image_latents = torch::zeros_like(batch.latents);
    }
    const std::int64_t patch_t = spec.transformer.patch_size_t.value_or(1);
    const std::int64_t video_tokens = (latent_frames / patch_t) *
                                      (h / spec.transformer.patch_size) *
                                      (w / spec.transformer.patch_size);

    std::vector<double> times;
    std::map<std::string, std::vector<double>> phase_times;
    std::map<std::string, std::int64_t> phase_peaks;
    StepPhaseClock clock(device);
    // Each phase's peak is read after the phase and reset before the next, which costs a host
    // sync per phase: only on the steps after the timed ones, never inside them.
    auto step_once = [&](bool peaks) {
        auto phase_end = [&](const std::string& phase) {
            clock.mark(phase);
            if (peaks) {
                synchronize(device);
                phase_peaks[phase] = std::max(phase_peaks[phase], tensor_peak());
                reset_tensor_peak();
            }
        };
        clock.start();
        const cogvideox::DiffusionLoss loss = cogvideox::diffusion_loss(model, schedule, batch);
        phase_end("forward");
        loss.loss.backward();
        phase_end("backward");
        clip_grad_norm(trainable, 1.0);
        optimizer->step();
        optimizer->zero_grad();
        phase_end("optimizer");
        synchronize(device);
    };
    core::reset_peak_memory(device);
    reset_tensor_peak();
    for (std::int64_t step = 0; step < spec.steps; ++step) {
        const auto started = std::chrono::steady_clock::now();
        step_once(false);
        if (step > 0) {
            times.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
            for (const auto& [phase, seconds] : clock.phases()) {
                phase_times[phase].push_back(seconds);
            }
        }
    }
    const std::int64_t peak_bytes = core::memory_stats(device).peak;
    const std::int64_t peak_tensor_bytes = tensor_peak();
    reset_tensor_peak();
    step_once(true);
    if (!spec.profile_path.empty()) {
        KinetoTrace trace(device.is_cuda());
        step_once(false);
        trace.save(spec.profile_path);
    }
    nlohmann::json validation;
    if (validation_pipeline) {
        validation = bench_validation(spec, *validation_pipeline, model.ptr(), {dtype, device},
                                      tensor_peak, reset_tensor_peak);
    }
    nlohmann::json phases_s = nlohmann::json::object();
    for (const auto& [phase, seconds] : phase_times) {
        phases_s[phase] = median(seconds);
    }
    const double step_s = median(times);
    const double tokens = static_cast<double>(video_tokens + spec.text_tokens);
    const std::int64_t checkpointed = cogvideox::checkpointed_block_count(
        spec.transformer, spec.checkpointing, spec.checkpointed_blocks);
    nlohmann::json result = {
        {"shape", spec.name},
        {"device", device.str()},
        {"precision", spec.precision},
        {"latents", {1, latent_frames, spec.transformer.out_channels, h, w}},
        {"text_tokens", spec.text_tokens},
        {"layers", spec.transformer.num_layers},
        {"inner_dim", spec.transformer.inner_dim()},
        {"rank", spec.rank},
        {"optimizer", spec.optimizer},
        {"checkpointing", spec.checkpointing},
        {"checkpointed_blocks", checkpointed},
        {"keeps_attention", spec.keep_attention && core::KeptAttention::available()},
        {"trainable_parameters", trainable_count},
        {"steps_timed", static_cast<std::int64_t>(times.size())},
        {"steps_s", times},
        {"median_step_s", step_s},
        {"tokens_per_s", tokens / step_s},
        {"phases_s", phases_s},
        {"peak_memory_bytes", peak_bytes},
        {"peak_tensor_bytes", peak_tensor_bytes},
        {"estimate_bytes", estimate_bytes(spec, dtype, quantization)},
        {"quantize", lora::base_quantization_name(quantization)},
        {"phase_peak_bytes", phase_peaks},
        {"attention", spec.attention},
    };
    if (const double peak = peak_flops(device); peak > 0) {
        // forward + backward (2x) + the recomputed forward of the checkpointed blocks, less
        // their attention when it was kept
        const double recomputed =
            static_cast<double>(checkpointed) / static_cast<double>(spec.transformer.num_layers);
        const ForwardFlops forward =
            forward_flops(spec.transformer, video_tokens, spec.text_tokens);
        const bool kept = spec.keep_attention && core::KeptAttention::available();
        const double flops = (forward.linears + forward.attention) * 3.0 +
                             (forward.linears + (kept ? 0.0 : forward.attention)) * recomputed;
        result["mfu"] = flops / step_s / peak;
    }
    if (!validation.is_null()) {
        result["peak_with_validation_bytes"] =
            std::max(peak_tensor_bytes, validation["peak_tensor_bytes"].get<std::int64_t>());
        result["validation"] = std::move(validation);
    }
    return result;
}

} // namespace tuneframe::train
