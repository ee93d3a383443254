#include "engine/train/bench/training_bench.h"

#include "engine/core/device/cpu_allocation_tracker.h"
#include "engine/core/device/memory_stats.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/kept_attention.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/bench_model.h"
#include "engine/models/model_family.h"
#include "engine/models/module_weights.h"
#include "engine/models/transformer_memory_estimate.h"
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

models::VideoShape video_shape(const BenchSpec& spec) {
    return {spec.frames, spec.height, spec.width, 1};
}

// What the job memory estimate predicts for this step (weights, adapter state, activations):
// with blocks swapped, the resident blocks and two in flight (`block_bytes` each), and the
// swapped blocks recomputing.
std::int64_t estimate_bytes(const BenchSpec& spec, const models::BenchModel& model,
                            const models::TransformerMemory& memory, std::int64_t checkpointed,
                            c10::ScalarType dtype, lora::BaseQuantization quantization,
                            std::int64_t block_bytes) {
    const std::int64_t recomputed =
        std::min<std::int64_t>(memory.num_blocks(), checkpointed + spec.blocks_to_swap);
    const std::int64_t away = std::max<std::int64_t>(spec.blocks_to_swap - 2, 0);
    return static_cast<std::int64_t>(
               models::estimate_lora_training(memory, model.parameters(),
                                              static_cast<std::int64_t>(c10::elementSize(dtype)),
                                              video_shape(spec), model.lora_targets(), spec.rank,
                                              {recomputed, spec.keep_attention}, quantization)
                   .total()) -
           away * block_bytes;
}

// The frozen weights of one block as the model holds them (a block of the built model's blocks,
// all of one size), adapters aside.
std::int64_t frozen_block_bytes(const models::DiffusionTransformerImpl& model) {
    std::int64_t bytes = 0;
    for (const auto& item : model.named_parameters()) {
        if (!lora::is_adapter_tensor(item.key())) {
            bytes += item.value().numel() * static_cast<std::int64_t>(item.value().element_size());
        }
    }
    for (const auto& item : model.named_buffers()) {
        bytes += item.value().numel() * static_cast<std::int64_t>(item.value().element_size());
    }
    return bytes / std::max<std::int64_t>(model.num_blocks(), 1);
}

// "wan, 1536 wide, 4096-wide text, 16 in / 16 out channels": what must agree for the folder's
// encoders and sampler to run the benched transformer.
std::string model_shape_text(const std::string& family, const nlohmann::json& summary,
                             std::int64_t text_width) {
    return family + ", " + summary["width"].dump() + " wide, " + std::to_string(text_width) +
           "-wide text, " + summary["in_channels"].dump() + " in / " +
           summary["out_channels"].dump() + " out channels";
}

// The pipeline folder `--validation` names, checked against the benched architecture before any
// step runs: its family samples with the benched transformer in place of its own.
std::unique_ptr<models::ModelFolder> open_validation_model(const BenchSpec& spec,
                                                           const models::BenchModel& bench) {
    std::unique_ptr<models::ModelFolder> folder =
        models::open_model_folder(spec.validation_pipeline);
    const nlohmann::json theirs = folder->summary();
    const nlohmann::json ours = bench.summary();
    const std::int64_t their_text = folder->encoder_memory().text_width;
    const std::string their_shape = model_shape_text(folder->family(), theirs, their_text);
    const std::string our_shape = model_shape_text(bench.family(), ours, bench.text_width());
    if (their_shape != our_shape) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The pipeline in '" + spec.validation_pipeline + "' is " +
                              folder->description() + " (" + their_shape +
                              "), but the benched transformer is " + bench.description() + " (" +
                              our_shape + ").",
                          "Give the pipeline folder of the benched architecture (init-model "
                          "--arch " +
                              bench.architecture() + " --complete writes one).");
    }
    if (!folder->supports("t2v")) {
        throw core::Error(core::ErrorCode::Usage,
                          "bench --validation samples text-to-video, which the pipeline in '" +
                              spec.validation_pipeline + "' does not make.",
                          "Bench an architecture that makes text-to-video, with its pipeline "
                          "folder (init-model --complete writes one).");
    }
    if (auto problem = folder->video_shape_problem(spec.frames, spec.height, spec.width, true)) {
        throw core::Error(core::ErrorCode::Usage,
                          "bench --validation: " + problem->message + " (--" + problem->dimension +
                              ")",
                          problem->hint);
    }
    return folder;
}

// One validation pass after the steps, with the peak of live tensor bytes read at each stage's
// end (a host sync per stage, outside the timed steps). Every expert of a two-expert pipeline
// samples with the benched transformer: both have its shape.
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
    const std::vector<models::DiffusionTransformer> experts(
        static_cast<std::size_t>(pipeline.experts()), model);
    pass.sample(experts, boundary, &seconds);
    return {{"steps", spec.validation_steps},
            {"prompts", spec.validation_prompts},
            {"seconds", seconds},
            {"stage_peak_bytes", stage_peaks},
            {"peak_tensor_bytes", peak}};
}

// ref_lora_step.py's optimizer: AdamW(lr 1e-4, betas (0.9, 0.95), weight decay 1e-3, eps 1e-8).
OptimizerOptions bench_optimizer_options(const std::string& optimizer) {
    OptimizerOptions options;
    options.lr = 1e-4;
    if (optimizer.rfind("adam", 0) == 0) {
        options.beta1 = 0.9;
        options.beta2 = 0.95;
        options.weight_decay = 1e-3;
        options.epsilon = 1e-8;
    }
    return options;
}

} // namespace

BenchSpec bench_shape(const std::string& name) {
    const models::BenchShape shape = models::find_bench_shape(name);
    BenchSpec spec;
    spec.name = name;
    spec.architecture = shape.architecture;
    spec.frames = shape.video.frames;
    spec.height = shape.video.height;
    spec.width = shape.video.width;
    spec.text_tokens = shape.text_tokens;
    spec.device = shape.device;
    spec.precision = shape.precision;
    return spec;
}

BenchSpec bench_architecture(const std::string& architecture) {
    const models::VideoShape own = models::find_bench_model(architecture)->sample_shape();
    BenchSpec spec;
    spec.name = architecture;
    spec.architecture = architecture;
    spec.frames = own.frames;
    spec.height = own.height;
    spec.width = own.width;
    return spec;
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
    const std::unique_ptr<models::BenchModel> bench = models::find_bench_model(spec.architecture);
    if (spec.layers) {
        if (*spec.layers < 1) {
            throw core::Error(core::ErrorCode::Usage, "bench --layers must be at least 1.");
        }
        bench->set_num_blocks(*spec.layers);
    }
    if (auto problem = bench->video_shape_problem(spec.frames, spec.height, spec.width)) {
        throw core::Error(core::ErrorCode::Usage,
                          "bench --" + problem->dimension + ": " + problem->message, problem->hint);
    }
    const std::int64_t text_tokens = spec.text_tokens > 0 ? spec.text_tokens : bench->text_length();
    const std::string task = spec.task.empty() ? bench->tasks().front() : spec.task;
    std::unique_ptr<models::ModelFolder> validation_pipeline;
    if (!spec.validation_pipeline.empty()) {
        validation_pipeline = open_validation_model(spec, *bench);
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
    if (spec.memory_fraction) {
        core::limit_device_memory(device, *spec.memory_fraction);
    }
    if (spec.blocks_to_swap < 0 || spec.blocks_to_swap > bench->num_blocks()) {
        throw core::Error(core::ErrorCode::Usage,
                          "bench --blocks-to-swap must be between 0 and the model's " +
                              std::to_string(bench->num_blocks()) + " blocks.");
    }
    // A model that swaps is built, quantized and adapted on the host, and only what stays
    // resident goes to the device: the reason to swap is a device too small for all of it.
    const bool swaps = spec.blocks_to_swap > 0;
    const c10::Device build_on = swaps ? c10::Device(c10::kCPU) : device;
    torch::manual_seed(0);
    const models::DiffusionTransformer model = bench->build(dtype);
    model->to(build_on);
    model->quantize_base(quantization);
    lora::LoRAConfig lora_config;
    lora_config.rank = spec.rank;
    lora_config.alpha = static_cast<double>(spec.rank);
    lora_config.target_modules = bench->lora_targets();
    lora::inject_lora(*model, lora_config);
    model->to(build_on);
    lora::freeze_all_but_lora(*model);
    const std::int64_t block_bytes = frozen_block_bytes(*model);
    model->swap_blocks(spec.blocks_to_swap, device);
    model->to(device);
    const std::unique_ptr<models::TransformerMemory> memory = bench->memory(text_tokens);
    const std::int64_t checkpointed =
        memory->checkpointed_blocks(spec.checkpointing, spec.checkpointed_blocks);
    model->set_checkpointed_blocks(checkpointed);
    model->set_keep_attention(spec.keep_attention);
    model->set_offload_activations(spec.offload_activations);
    model->train();
    NamedParameters trainable;
    std::int64_t trainable_count = 0;
    for (const auto& item : model->named_parameters()) {
        if (item.value().requires_grad()) {
            trainable.emplace_back(item.key(), item.value());
            trainable_count += item.value().numel();
        }
    }
    auto optimizer =
        make_optimizer(spec.optimizer, trainable, bench_optimizer_options(spec.optimizer));

    const models::BenchTraining training =
        bench->training({video_shape(spec), text_tokens, task}, {dtype, device});
    const models::TrainingBatch& batch = training.batch;

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
        const models::TrainingLoss loss = training.objective->forward(*model, batch);
        phase_end("forward");
        loss.loss.backward();
        model->finish_gradients();
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
        validation = bench_validation(spec, *validation_pipeline, model, {dtype, device},
                                      tensor_peak, reset_tensor_peak);
    }
    nlohmann::json phases_s = nlohmann::json::object();
    for (const auto& [phase, seconds] : phase_times) {
        phases_s[phase] = median(seconds);
    }
    const double step_s = median(times);
    const std::int64_t tokens = training.objective->tokens(batch);
    const bool kept = spec.keep_attention && core::KeptAttention::available();
    nlohmann::json result = {
        {"shape", spec.name},
        {"family", bench->family()},
        {"architecture", bench->architecture()},
        {"description", bench->description()},
        {"task", task},
        {"device", device.str()},
        {"precision", spec.precision},
        {"latents", batch.latents.sizes().vec()},
        {"text_tokens", text_tokens},
        {"tokens", tokens},
        {"layers", bench->num_blocks()},
        {"inner_dim", bench->width()},
        {"rank", spec.rank},
        {"optimizer", spec.optimizer},
        {"checkpointing", spec.checkpointing},
        {"checkpointed_blocks", checkpointed},
        {"keeps_attention", kept},
        {"trainable_parameters", trainable_count},
        {"steps_timed", static_cast<std::int64_t>(times.size())},
        {"steps_s", times},
        {"median_step_s", step_s},
        {"tokens_per_s", static_cast<double>(tokens) / step_s},
        {"phases_s", phases_s},
        {"peak_memory_bytes", peak_bytes},
        {"peak_tensor_bytes", peak_tensor_bytes},
        {"estimate_bytes",
         estimate_bytes(spec, *bench, *memory, checkpointed, dtype, quantization, block_bytes)},
        {"quantize", lora::base_quantization_name(quantization)},
        {"blocks_to_swap", spec.blocks_to_swap},
        {"offload_activations", spec.offload_activations},
        {"memory_limit_bytes",
         spec.memory_fraction
             ? static_cast<std::int64_t>(*spec.memory_fraction *
                                         static_cast<double>(core::memory_stats(device).total))
             : 0},
        {"phase_peak_bytes", phase_peaks},
        {"attention", spec.attention},
    };
    if (const double peak = peak_flops(device); peak > 0) {
        // forward + backward (2x) + the recomputed forward of the checkpointed blocks, less
        // their attention when it was kept
        const double recomputed =
            static_cast<double>(checkpointed) / static_cast<double>(bench->num_blocks());
        const models::ForwardFlops forward = bench->forward_flops(batch);
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
