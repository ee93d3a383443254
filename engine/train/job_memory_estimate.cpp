#include "engine/train/job_memory_estimate.h"

#include "engine/core/error.h"
#include "engine/dist/parallel_mesh.h"

#include <algorithm>
#include <map>

namespace tuneframe::train {
namespace {

// Widths of the VAE's first level (its channels at full resolution) alive while a window of
// frames goes through it: the input, the norm and SiLU outputs, a conv output and the causal
// padding of its caches.
constexpr std::int64_t kVaeEncodeWidths = 6;
constexpr std::int64_t kVaeDecodeWidths = 8;
// A T5 (v1.1 or UMT5) layer keeps about this many [L, d_model] tensors.
constexpr std::int64_t kTextEncoderWidths = 12;
constexpr std::uint64_t kCudaContextBytes = 600ull * 1000 * 1000;

const core::ComponentInventory*
find_component(const std::vector<core::ComponentInventory>& components, const std::string& name) {
    for (const auto& component : components) {
        if (component.name == name) {
            return &component;
        }
    }
    return nullptr;
}

const core::ComponentInventory&
require_component(const std::vector<core::ComponentInventory>& components, const std::string& name,
                  const std::string& model) {
    const core::ComponentInventory* component = find_component(components, name);
    if (!component || component->weights.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder " + model + " has no " + name + " weights.",
                          "Choose a diffusers pipeline folder (transformer, vae, text_encoder, "
                          "tokenizer, scheduler).");
    }
    return *component;
}

// Bytes of optimizer state per trainable parameter on the device.
std::int64_t optimizer_state_bytes(const std::string& optimizer) {
    static const std::map<std::string, std::int64_t> bytes = {
        {"adamw", 8},
        {"adam", 8},
        {"adamw8bit", 2},          // two 8-bit moments
        {"prodigy", 16},           // moments, s and the initial weights
        {"came", 4},               // one moment; factored rows/columns
        {"adamw-cpu-offload", 0}}; // kept in host memory
    const auto found = bytes.find(optimizer);
    return found == bytes.end() ? 8 : found->second;
}

// The first VAE level's window at the given frame size, with tiling when the job asks for it.
std::uint64_t vae_window_bytes(const models::EncoderMemory& encoders, std::int64_t dtype_bytes,
                               std::int64_t height, std::int64_t width, bool tiling,
                               std::int64_t frames, std::int64_t widths) {
    if (tiling) {
        height = std::min(height, encoders.vae_tile_height);
        width = std::min(width, encoders.vae_tile_width);
    }
    return static_cast<std::uint64_t>(widths * encoders.vae_channels * frames * height * width *
                                      dtype_bytes);
}

std::uint64_t weight_bytes(const core::ComponentInventory& component, std::int64_t dtype_bytes) {
    return static_cast<std::uint64_t>(component.parameters * dtype_bytes);
}

} // namespace

std::uint64_t PhaseMemory::total() const {
    std::uint64_t resident = 0;
    std::map<std::string, std::uint64_t> stages;
    for (const MemoryPart& part : parts) {
        if (part.stage.empty()) {
            resident += part.bytes;
        } else {
            stages[part.stage] += part.bytes;
        }
    }
    std::uint64_t largest = 0;
    for (const auto& [stage, bytes] : stages) {
        largest = std::max(largest, bytes);
    }
    return resident + largest;
}

std::uint64_t JobMemoryEstimate::peak() const {
    std::uint64_t peak = 0;
    for (const PhaseMemory& phase : phases) {
        peak = std::max(peak, phase.skipped ? 0 : phase.total());
    }
    return peak;
}

nlohmann::json JobMemoryEstimate::to_json() const {
    nlohmann::json json = {{"processes", processes},
                           {"data_parallel", data_parallel},
                           {"sequence_parallel", sequence_parallel},
                           {"tensor_parallel", tensor_parallel},
                           {"pipeline_parallel", pipeline_parallel},
                           {"largest_bucket", {frames, height, width}},
                           {"peak", peak()},
                           {"phases", nlohmann::json::array()}};
    for (const PhaseMemory& phase : phases) {
        nlohmann::json parts = nlohmann::json::array();
        for (const MemoryPart& part : phase.parts) {
            parts.push_back({{"name", part.name}, {"stage", part.stage}, {"bytes", part.bytes}});
        }
        json["phases"].push_back({{"phase", phase.phase},
                                  {"total", phase.total()},
                                  {"skipped", phase.skipped},
                                  {"parts", parts}});
    }
    return json;
}

JobMemoryEstimate estimate_job_memory(const common::TrainingJob& job,
                                      const models::ModelFolder& model,
                                      const std::vector<core::ComponentInventory>& components,
                                      int processes) {
    const core::ComponentInventory& transformer =
        require_component(components, "transformer", job.model);
    const core::ComponentInventory& vae = require_component(components, "vae", job.model);
    const core::ComponentInventory& text_encoder =
        require_component(components, "text_encoder", job.model);
    const std::unique_ptr<models::TransformerMemory> memory = model.transformer_memory();
    const models::EncoderMemory encoders = model.encoder_memory();
    const std::int64_t blocks = memory->num_blocks();

    JobMemoryEstimate estimate;
    estimate.processes = std::max(processes, 1);
    const bool hybrid = job.parallel.plan == "hybrid";
    estimate.sequence_parallel =
        hybrid ? static_cast<int>(std::max<std::int64_t>(job.parallel.sp_size, 1)) : 1;
    estimate.tensor_parallel =
        hybrid ? static_cast<int>(std::max<std::int64_t>(job.parallel.tp_size, 1)) : 1;
    estimate.pipeline_parallel =
        hybrid ? static_cast<int>(std::clamp<std::int64_t>(job.parallel.pp_size, 1,
                                                           std::max<std::int64_t>(blocks, 1)))
               : 1;
    estimate.data_parallel =
        std::max(estimate.processes / (estimate.sequence_parallel * estimate.tensor_parallel *
                                       estimate.pipeline_parallel),
                 1);
    const std::int64_t bytes = job.precision == "fp32" ? 4 : 2;
    for (const auto& [height, width] : job.dataset.resolution_buckets) {
        for (const std::int64_t frames : job.dataset.frame_buckets) {
            if (frames * height * width > estimate.frames * estimate.height * estimate.width) {
                estimate.frames = frames;
                estimate.height = height;
                estimate.width = width;
            }
        }
    }
    const std::uint64_t context = job.device == "cpu" ? 0 : kCudaContextBytes;
    const std::uint64_t text_activations = static_cast<std::uint64_t>(
        model.text_length() * encoders.text_width * bytes * kTextEncoderWidths);
    auto runtime = [&](PhaseMemory& phase) {
        if (context > 0) {
            phase.parts.push_back({"CUDA context", "", context});
        }
    };

    // prepare: one process, one model resident at a time, one clip at a time.
    PhaseMemory prepare{"prepare", {}, false};
    runtime(prepare);
    prepare.parts.push_back({"text encoder weights", "text", weight_bytes(text_encoder, bytes)});
    prepare.parts.push_back({"text encoder activations", "text", text_activations});
    prepare.parts.push_back({"VAE weights", "vae", weight_bytes(vae, bytes)});
    prepare.parts.push_back(
        {"VAE encode activations", "vae",
         vae_window_bytes(encoders, bytes, estimate.height, estimate.width, job.dataset.vae_tiling,
                          std::min(estimate.frames, encoders.vae_encode_frames),
                          kVaeEncodeWidths)});

    // train: what every process holds during a step.
    PhaseMemory train{"train", {}, false};
    runtime(train);
    const bool distributed = estimate.data_parallel * estimate.sequence_parallel *
                                 estimate.tensor_parallel * estimate.pipeline_parallel >
                             1;
    // The largest stage's share of the blocks (the embeddings and output layers, about 1% of
    // a model, count with them).
    const int pp = estimate.pipeline_parallel;
    const double stage_share =
        static_cast<double>(dist::pipeline_stage_blocks(blocks, pp, pp - 1).second -
                            dist::pipeline_stage_blocks(blocks, pp, pp - 1).first) /
        static_cast<double>(std::max<std::int64_t>(blocks, 1));
    const auto of_stage = [stage_share](std::uint64_t whole) {
        return static_cast<std::uint64_t>(static_cast<double>(whole) * stage_share);
    };
    const int zero_stage = dist::zero_stage_of(job.parallel);
    const bool zero2 = distributed && zero_stage == 2;
    const bool sharded = distributed && zero_stage > 0;
    const std::int64_t shards = sharded ? estimate.data_parallel : 1;
    const auto bucket = static_cast<std::int64_t>(job.parallel.bucket_mb * (1 << 20));
    // What a plan keeps of `gradient_bytes` at its peak: one process has them once; ddp and
    // zero1 have them and as much again in the all-reduce buckets; zero2 its shard, summed in
    // float32, and the bucket in flight.
    const auto gradients = [&](std::int64_t elements, std::int64_t gradient_bytes) {
        if (zero2) {
            return static_cast<std::uint64_t>(elements * 4 / shards + bucket);
        }
        return static_cast<std::uint64_t>(gradient_bytes * (distributed ? 2 : 1));
    };
    const std::int64_t state_bytes = optimizer_state_bytes(job.optimizer.name);
    // A quantized base is stored quantized from load on (validation samples with it too); the
    // job's reader already refused it for mode full. The estimate takes fp8 at its word even
    // where this engine's LibTorch has none: the run itself says so.
    const auto quantization = job.lora.base_quantization == "none"
                                  ? lora::BaseQuantization::None
                                  : lora::BaseQuantization::Int8; // fp8 takes as many bytes
    // Tensor parallelism keeps 1/tp of each block's attention projections and feed-forward
    // layers, and of one of each adapter's two matrices.
    const double tp = estimate.tensor_parallel;
    const std::int64_t split_weights = memory->tensor_parallel_weights();
    const auto not_held = static_cast<std::int64_t>(
        static_cast<double>(split_weights) * (1.0 - 1.0 / tp) *
        (quantization == lora::BaseQuantization::None ? static_cast<double>(bytes) : 1.0));
    const std::uint64_t whole_weights =
        weight_bytes(transformer, bytes) -
        static_cast<std::uint64_t>(memory->quantized_base_saving_bytes(bytes, quantization));
    train.parts.push_back({"transformer weights", "",
                           of_stage(whole_weights - static_cast<std::uint64_t>(not_held))});
    if (job.mode == "lora") {
        const auto adapter = static_cast<std::int64_t>(
            static_cast<double>(memory->adapter_parameters(job.lora.targets, job.lora.rank)) *
            (0.5 + 0.5 / tp));
        train.parts.push_back(
            {"adapter weights", "", of_stage(static_cast<std::uint64_t>(adapter * 4))});
        train.parts.push_back({"gradients", "", of_stage(gradients(adapter, adapter * 4))});
        train.parts.push_back(
            {"optimizer state", "",
             of_stage(static_cast<std::uint64_t>(adapter * state_bytes / shards))});
    } else {
        const std::int64_t parameters =
            transformer.parameters -
            static_cast<std::int64_t>(static_cast<double>(split_weights) * (1.0 - 1.0 / tp));
        train.parts.push_back(
            {"gradients", "", of_stage(gradients(parameters, parameters * bytes))});
        const bool offloaded = job.optimizer.name == "adamw-cpu-offload";
        const std::int64_t master = bytes < 4 && !offloaded ? 4 : 0;
        train.parts.push_back(
            {"optimizer state", "",
             of_stage(static_cast<std::uint64_t>(parameters * (state_bytes + master) / shards))});
    }
    const models::VideoShape train_shape{estimate.frames, estimate.height, estimate.width,
                                         job.batch_size};
    const std::int64_t tokens = memory->tokens(train_shape);
    const std::int64_t local_tokens =
        (tokens + estimate.sequence_parallel - 1) / estimate.sequence_parallel;
    train.parts.push_back(
        {"activations", "",
         memory->training_activation_bytes(
             bytes, job.batch_size, local_tokens,
             {memory->checkpointed_blocks(job.gradient_checkpointing, job.checkpointed_blocks),
              job.checkpoint_keeps_attention},
             estimate.sequence_parallel)});

    // validation: rank 0 samples with the training state resident and the whole sequence.
    PhaseMemory validation{"validation", {}, job.validation.prompts.empty()};
    // On a GPU the trainer's pipeline moves the transformer to the host while the text encoder
    // and the VAE run (the sampler's offload_idle), so its weights count in the denoising stage
    // only.
    const bool offloads_transformer = job.device != "cpu";
    for (MemoryPart part : train.parts) {
        if (part.name == "activations") {
            continue;
        }
        if (offloads_transformer && part.name == "transformer weights") {
            part.stage = "denoise";
        }
        validation.parts.push_back(part);
    }
    const models::VideoShape own = model.sample_shape();
    models::VideoShape shape{job.validation.frames > 0 ? job.validation.frames : own.frames,
                             job.validation.height > 0 ? job.validation.height : own.height,
                             job.validation.width > 0 ? job.validation.width : own.width, 1};
    if (pp > 1) {
        validation.parts.push_back({"whole transformer for sampling", "denoise", whole_weights});
    }
    validation.parts.push_back({"text encoder weights", "text", weight_bytes(text_encoder, bytes)});
    validation.parts.push_back({"text encoder activations", "text", text_activations});
    validation.parts.push_back({"denoising activations (CFG)", "denoise",
                                memory->forward_activation_bytes(bytes, 2, memory->tokens(shape))});
    validation.parts.push_back({"VAE weights", "vae", weight_bytes(vae, bytes)});
    validation.parts.push_back(
        {"VAE decode activations", "vae",
         vae_window_bytes(encoders, bytes, shape.height, shape.width, job.dataset.vae_tiling,
                          std::min(shape.frames, encoders.vae_decode_frames), kVaeDecodeWidths)});

    estimate.phases = {prepare, train, validation};
    return estimate;
}

} // namespace tuneframe::train
