#include "engine/train/job_memory_estimate.h"

#include "engine/core/error.h"
#include "engine/dist/parallel_mesh.h"
#include "engine/models/memory_bytes.h"
#include "engine/train/run_experts.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tuneframe::train {
namespace {

using models::memory_bytes;
using models::memory_count;
// Every figure below is computed in long double (see memory_bytes.h): the model's config values
// are only as sane as its config.json, and their products with the job's must not wrap.
using Figure = long double;

Figure figure(std::int64_t value) {
    return static_cast<Figure>(value);
}

Figure figure(std::uint64_t value) {
    return static_cast<Figure>(value);
}

// Widths of the VAE's first level (its channels at full resolution) alive while a window of
// frames goes through it: the input, the norm and SiLU outputs, a conv output and the causal
// padding of its caches.
constexpr std::int64_t kVaeEncodeWidths = 6;
constexpr std::int64_t kVaeDecodeWidths = 8;
// A T5 (v1.1 or UMT5) layer keeps about this many [L, d_model] tensors, and its attention
// [heads, L, L] scores, position bias and weights in the run's dtype besides the float32
// softmax. T5 v1.1 XXL (CogVideoX) and UMT5-XXL (Wan) both have 64 heads; at Wan's 512 tokens
// the scores outweigh the [L, d_model] tensors.
constexpr std::int64_t kTextEncoderWidths = 12;
constexpr std::int64_t kTextEncoderHeads = 64;
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
    return memory_bytes(figure(widths) * figure(encoders.vae_channels) * figure(frames) *
                            figure(height) * figure(width) * figure(dtype_bytes),
                        "the VAE's activations");
}

std::uint64_t weight_bytes(const core::ComponentInventory& component, std::int64_t dtype_bytes) {
    return memory_bytes(figure(component.parameters) * figure(dtype_bytes),
                        "the " + component.name + " weights");
}

// One prompt through the text encoder (prompts are encoded one at a time).
std::uint64_t text_encoder_activation_bytes(std::int64_t tokens, std::int64_t width,
                                            std::int64_t dtype_bytes) {
    return memory_bytes(figure(tokens) * figure(width) * figure(dtype_bytes) *
                                figure(kTextEncoderWidths) +
                            figure(kTextEncoderHeads) * figure(tokens) * figure(tokens) *
                                figure(3 * dtype_bytes + 4),
                        "the text encoder's activations");
}

// The inventory of expert `expert`'s transformer ("transformer", "transformer_2").
const core::ComponentInventory&
expert_inventory(const std::vector<core::ComponentInventory>& components, int expert,
                 const std::string& model) {
    return require_component(components, run_experts::folder_name(expert), model);
}

// The estimate of one job, phase by phase.
class JobMemoryEstimator {
public:
    JobMemoryEstimator(const common::TrainingJob& job, const models::ModelFolder& model,
                       const std::vector<core::ComponentInventory>& components, int processes);

    JobMemoryEstimate estimate();

private:
    void lay_out(int processes);
    void find_largest_bucket();
    void add_runtime(PhaseMemory& phase) const;
    PhaseMemory prepare() const;
    PhaseMemory train() const;
    PhaseMemory validation(const PhaseMemory& train) const;
    PhaseMemory host_train() const;
    PhaseMemory host_validation(const PhaseMemory& host_train) const;
    // One block's held weights (the held weights over the depth), and what of a trained
    // expert's held weights stays on the device: all but the swapped blocks.
    std::uint64_t block_bytes(const core::ComponentInventory& transformer) const;
    std::uint64_t resident_weights(const core::ComponentInventory& transformer) const;
    std::uint64_t in_flight_weights(const core::ComponentInventory& transformer) const;
    // A full fine-tune's trainable parameters (of every trained expert, this rank's share), and
    // the share of them in swapped blocks.
    std::int64_t full_parameters() const;
    std::int64_t swapped_parameters(std::int64_t parameters) const;
    bool on_gpu() const { return job_.device != "cpu"; }
    // The largest pipeline stage's share of `whole` (the embeddings and output layers, about 1%
    // of a model, count with the blocks).
    std::uint64_t of_stage(std::uint64_t whole) const;
    // What a plan keeps of `gradient_bytes` at its peak.
    std::uint64_t gradients(std::int64_t elements, std::int64_t gradient_bytes) const;
    // A trained expert's weights as training holds them (quantized base, tensor-parallel share).
    std::uint64_t held_weights(const core::ComponentInventory& transformer) const;
    // The bytes of the split layers' weights this rank does not hold under tensor parallelism.
    Figure split_weight_bytes() const;
    std::uint64_t whole_weights(const core::ComponentInventory& transformer) const;
    std::uint64_t text_activations() const;
    // Tokens per sequence on this rank at the largest bucket, the blocks a step recomputes,
    // whether memory.offload_activations moves their inputs to the host, and one input's bytes.
    std::int64_t local_tokens() const;
    std::int64_t recomputed_blocks() const;
    bool offloads_activations() const;
    std::uint64_t block_input() const;
    bool distributed() const;

    const common::TrainingJob& job_;
    const models::ModelFolder& model_;
    const std::vector<core::ComponentInventory>& components_;
    std::unique_ptr<models::TransformerMemory> memory_;
    models::EncoderMemory encoders_;
    std::int64_t bytes_;
    lora::BaseQuantization quantization_;
    std::vector<int> trained_; // the experts the job trains
    std::int64_t swapped_ = 0; // blocks swapped, within this rank's stage
    models::Parking parking_ = models::Parking::Host;
    // Wan 2.1 I2V's CLIP, which image-to-video encodes the first frame with.
    const core::ComponentInventory* image_encoder_ = nullptr;
    JobMemoryEstimate estimate_;
};

JobMemoryEstimator::JobMemoryEstimator(const common::TrainingJob& job,
                                       const models::ModelFolder& model,
                                       const std::vector<core::ComponentInventory>& components,
                                       int processes)
    : job_(job)
    , model_(model)
    , components_(components)
    , memory_(model.transformer_memory())
    , encoders_(model.encoder_memory())
    , bytes_(job.precision == "fp32" ? 4 : 2)
    // A quantized base is stored quantized from load on (validation samples with it too); the
    // job's reader already refused it for mode full. The estimate takes fp8 at its word even
    // where this engine's LibTorch has none: the run itself says so.
    , quantization_(job.lora.base_quantization == "none"
                        ? lora::BaseQuantization::None
                        : lora::BaseQuantization::Int8) // fp8 takes as many bytes
    , trained_(run_experts::trained(job, model.experts())) {
    for (int expert = 0; expert < model.experts(); ++expert) {
        expert_inventory(components, expert, job.model);
    }
    require_component(components, "vae", job.model);
    require_component(components, "text_encoder", job.model);
    if (job.task == "i2v" && !model.image_encoder_folders().empty()) {
        image_encoder_ = &require_component(components, "image_encoder", job.model);
    }
    lay_out(processes);
    find_largest_bucket();
    const auto [first, end] = dist::pipeline_stage_blocks(
        memory_->num_blocks(), estimate_.pipeline_parallel, estimate_.pipeline_parallel - 1);
    swapped_ = std::clamp<std::int64_t>(job.memory.blocks_to_swap, 0, end - first);
    estimate_.swapped_blocks = swapped_;
    parking_ = job.memory.inactive_expert == "disk" ? models::Parking::Disk : models::Parking::Host;
}

void JobMemoryEstimator::lay_out(int processes) {
    estimate_.processes = std::max(processes, 1);
    const bool hybrid = job_.parallel.plan == "hybrid";
    estimate_.sequence_parallel =
        hybrid ? static_cast<int>(std::max<std::int64_t>(job_.parallel.sp_size, 1)) : 1;
    estimate_.tensor_parallel =
        hybrid ? static_cast<int>(std::max<std::int64_t>(job_.parallel.tp_size, 1)) : 1;
    estimate_.pipeline_parallel =
        hybrid ? static_cast<int>(std::clamp<std::int64_t>(
                     job_.parallel.pp_size, 1, std::max<std::int64_t>(memory_->num_blocks(), 1)))
               : 1;
    estimate_.data_parallel =
        std::max(estimate_.processes / (estimate_.sequence_parallel * estimate_.tensor_parallel *
                                        estimate_.pipeline_parallel),
                 1);
}

void JobMemoryEstimator::find_largest_bucket() {
    for (const auto& [height, width] : job_.dataset.resolution_buckets) {
        for (const std::int64_t frames : job_.dataset.frame_buckets) {
            if (frames * height * width > estimate_.frames * estimate_.height * estimate_.width) {
                estimate_.frames = frames;
                estimate_.height = height;
                estimate_.width = width;
            }
        }
    }
}

bool JobMemoryEstimator::distributed() const {
    return estimate_.data_parallel * estimate_.sequence_parallel * estimate_.tensor_parallel *
               estimate_.pipeline_parallel >
           1;
}

void JobMemoryEstimator::add_runtime(PhaseMemory& phase) const {
    if (job_.device != "cpu") {
        phase.parts.push_back({"CUDA context", "", kCudaContextBytes});
    }
}

std::uint64_t JobMemoryEstimator::text_activations() const {
    return text_encoder_activation_bytes(model_.text_length(), encoders_.text_width, bytes_);
}

std::uint64_t JobMemoryEstimator::of_stage(std::uint64_t whole) const {
    const std::int64_t blocks = memory_->num_blocks();
    const int pp = estimate_.pipeline_parallel;
    const auto [first, last] = dist::pipeline_stage_blocks(blocks, pp, pp - 1);
    const Figure share = figure(last - first) / figure(std::max<std::int64_t>(blocks, 1));
    return memory_bytes(figure(whole) * share, "a pipeline stage's share");
}

// One process has the gradients once; ddp and zero1 have them and as much again in the
// all-reduce buckets; zero2 its shard, summed in float32, and the bucket in flight.
std::uint64_t JobMemoryEstimator::gradients(std::int64_t elements,
                                            std::int64_t gradient_bytes) const {
    const bool sharded = distributed() && dist::zero_stage_of(job_.parallel) == 2;
    if (sharded) {
        const Figure bucket = std::floor(static_cast<Figure>(job_.parallel.bucket_mb) * (1 << 20));
        return memory_bytes(
            std::floor(figure(elements) * 4 / static_cast<Figure>(estimate_.data_parallel)) +
                bucket,
            "the gradients");
    }
    return memory_bytes(figure(gradient_bytes) * (distributed() ? 2 : 1), "the gradients");
}

std::uint64_t JobMemoryEstimator::whole_weights(const core::ComponentInventory& transformer) const {
    // A saving larger than the weights (a config that does not match its checkpoint) leaves
    // nothing, never a wrapped count.
    return memory_bytes(figure(weight_bytes(transformer, bytes_)) -
                            figure(memory_->quantized_base_saving_bytes(bytes_, quantization_)),
                        "the transformer weights");
}

// Tensor parallelism keeps 1/tp of each block's attention projections and feed-forward layers.
Figure JobMemoryEstimator::split_weight_bytes() const {
    const Figure tp = estimate_.tensor_parallel;
    return std::floor(figure(memory_->tensor_parallel_weights()) * (1 - 1 / tp) *
                      (quantization_ == lora::BaseQuantization::None ? figure(bytes_) : 1));
}

std::uint64_t JobMemoryEstimator::held_weights(const core::ComponentInventory& transformer) const {
    return of_stage(memory_bytes(figure(whole_weights(transformer)) - split_weight_bytes(),
                                 "the transformer weights"));
}

std::uint64_t JobMemoryEstimator::block_bytes(const core::ComponentInventory& transformer) const {
    return memory_bytes(std::floor((figure(whole_weights(transformer)) - split_weight_bytes()) /
                                   figure(std::max<std::int64_t>(memory_->num_blocks(), 1))),
                        "a block's weights");
}

std::uint64_t
JobMemoryEstimator::resident_weights(const core::ComponentInventory& transformer) const {
    return memory_bytes(figure(held_weights(transformer)) -
                            figure(swapped_) * figure(block_bytes(transformer)),
                        "the resident blocks' weights");
}

std::uint64_t
JobMemoryEstimator::in_flight_weights(const core::ComponentInventory& transformer) const {
    return memory_bytes(figure(std::min<std::int64_t>(swapped_, 2)) *
                            figure(block_bytes(transformer)),
                        "the swapped blocks in flight");
}

std::int64_t JobMemoryEstimator::full_parameters() const {
    const Figure tp = estimate_.tensor_parallel;
    Figure parameters = 0;
    for (const int expert : trained_) {
        parameters += figure(expert_inventory(components_, expert, job_.model).parameters) -
                      std::floor(figure(memory_->tensor_parallel_weights()) * (1 - 1 / tp));
    }
    return memory_count(parameters, "the trained parameters");
}

std::int64_t JobMemoryEstimator::swapped_parameters(std::int64_t parameters) const {
    return memory_count(std::floor(figure(parameters) * figure(swapped_) /
                                   figure(std::max<std::int64_t>(memory_->num_blocks(), 1))),
                        "the swapped blocks' parameters");
}

// prepare: one process, one model resident at a time, one clip at a time; CLIP encodes the
// first frame while the VAE is loaded.
PhaseMemory JobMemoryEstimator::prepare() const {
    PhaseMemory prepare{"prepare", {}, false};
    add_runtime(prepare);
    const core::ComponentInventory& text_encoder =
        require_component(components_, "text_encoder", job_.model);
    prepare.parts.push_back({"text encoder weights", "text", weight_bytes(text_encoder, bytes_)});
    prepare.parts.push_back({"text encoder activations", "text", text_activations()});
    prepare.parts.push_back(
        {"VAE weights", "vae",
         weight_bytes(require_component(components_, "vae", job_.model), bytes_)});
    prepare.parts.push_back(
        {"VAE encode activations", "vae",
         vae_window_bytes(
             encoders_, bytes_, estimate_.height, estimate_.width, job_.dataset.vae_tiling,
             std::min(estimate_.frames, encoders_.vae_encode_frames), kVaeEncodeWidths)});
    if (image_encoder_) {
        prepare.parts.push_back(
            {"image encoder weights", "vae", weight_bytes(*image_encoder_, bytes_)});
    }
    return prepare;
}

// train: what every process holds on its device during a step. Of two experts trained together
// each micro-batch runs one and the other is parked off the device, so one expert's weights count
// here; both experts' adapters and optimizer state do. Swapped blocks count two in flight.
PhaseMemory JobMemoryEstimator::train() const {
    PhaseMemory train{"train", {}, false};
    add_runtime(train);
    const auto experts = static_cast<std::int64_t>(trained_.size());
    const core::ComponentInventory& first =
        expert_inventory(components_, trained_.front(), job_.model);
    train.parts.push_back({"transformer weights", "", resident_weights(first)});
    if (swapped_ > 0) {
        train.parts.push_back({"swapped blocks in flight", "", in_flight_weights(first)});
    }
    const Figure tp = estimate_.tensor_parallel;
    const std::int64_t shards =
        distributed() && dist::zero_stage_of(job_.parallel) > 0 ? estimate_.data_parallel : 1;
    const std::int64_t state_bytes = optimizer_state_bytes(job_.optimizer.name);
    if (job_.mode == "lora") {
        // Tensor parallelism keeps 1/tp of one of each adapter's two matrices.
        const std::int64_t adapter = memory_count(
            std::floor(figure(memory_->adapter_parameters(job_.lora.targets, job_.lora.rank)) *
                       (0.5L + 0.5L / tp)) *
                figure(experts),
            "the adapters' parameters");
        const std::uint64_t adapter_bytes =
            memory_bytes(figure(adapter) * 4, "the adapter weights");
        train.parts.push_back({"adapter weights", "", of_stage(adapter_bytes)});
        train.parts.push_back(
            {"gradients", "",
             of_stage(gradients(adapter, static_cast<std::int64_t>(adapter_bytes)))});
        train.parts.push_back(
            {"optimizer state", "",
             of_stage(
                 memory_bytes(std::floor(figure(adapter) * figure(state_bytes) / figure(shards)),
                              "the optimizer state"))});
    } else {
        // A swapped block's gradients go to the host as its backward ends.
        const std::int64_t parameters = full_parameters();
        const std::int64_t on_device = parameters - swapped_parameters(parameters);
        train.parts.push_back(
            {"gradients", "",
             of_stage(gradients(
                 on_device, memory_count(figure(on_device) * figure(bytes_), "the gradients")))});
        const bool offloaded = job_.optimizer.name == "adamw-cpu-offload";
        const std::int64_t master = bytes_ < 4 && !offloaded ? 4 : 0;
        train.parts.push_back(
            {"optimizer state", "",
             of_stage(memory_bytes(
                 std::floor(figure(parameters) * figure(state_bytes + master) / figure(shards)),
                 "the optimizer state"))});
    }
    const std::int64_t recomputed = recomputed_blocks();
    const std::uint64_t activations = memory_->training_activation_bytes(
        bytes_, job_.batch_size, local_tokens(), {recomputed, job_.checkpoint_keeps_attention},
        estimate_.sequence_parallel);
    if (!offloads_activations()) {
        train.parts.push_back({"activations", "", activations});
        return train;
    }
    // The recomputed blocks' inputs wait on the host; two are on the device at a time, one on
    // its way down after its block's forward, one back ahead of its recomputation.
    const std::uint64_t input = block_input();
    train.parts.push_back({"activations", "",
                           memory_bytes(figure(activations) - figure(recomputed) * figure(input),
                                        "the activations")});
    train.parts.push_back(
        {"offloaded activations in flight", "",
         memory_bytes(figure(std::min<std::int64_t>(recomputed, 2)) * figure(input),
                      "the offloaded activations in flight")});
    return train;
}

std::int64_t JobMemoryEstimator::local_tokens() const {
    const models::VideoShape shape{estimate_.frames, estimate_.height, estimate_.width,
                                   job_.batch_size};
    const std::int64_t tokens = memory_->tokens(shape);
    return (tokens + estimate_.sequence_parallel - 1) / estimate_.sequence_parallel;
}

// Swapped blocks (the last of each stage) recompute besides the first checkpointed ones.
std::int64_t JobMemoryEstimator::recomputed_blocks() const {
    return std::min<std::int64_t>(
        memory_->num_blocks(),
        memory_->checkpointed_blocks(job_.gradient_checkpointing, job_.checkpointed_blocks) +
            swapped_ * estimate_.pipeline_parallel);
}

bool JobMemoryEstimator::offloads_activations() const {
    return job_.memory.offload_activations && recomputed_blocks() > 0;
}

std::uint64_t JobMemoryEstimator::block_input() const {
    return memory_->block_input_bytes(bytes_, job_.batch_size, local_tokens());
}

// train, in host memory: the swapped blocks of every expert whose weights are kept (pinned), a
// parked expert's other weights or, parked on the disk, the expert read back at its turn (a
// stage: it replaces the one dropped), a swapped full fine-tune's gradients (and, on a GPU,
// their pinned staging), what adamw-cpu-offload keeps on the host, and the recomputed blocks'
// inputs memory.offload_activations keeps there (pinned) between forward and backward.
PhaseMemory JobMemoryEstimator::host_train() const {
    PhaseMemory host{"train", {}, false};
    const core::ComponentInventory& first =
        expert_inventory(components_, trained_.front(), job_.model);
    const bool parked_on_disk = trained_.size() > 1 && parking_ == models::Parking::Disk;
    if (swapped_ > 0) {
        const std::size_t kept = parked_on_disk ? 1 : trained_.size();
        host.parts.push_back(
            {"swapped blocks", "",
             memory_bytes(figure(swapped_) * figure(block_bytes(first)) * static_cast<Figure>(kept),
                          "the swapped blocks")});
    }
    if (offloads_activations()) {
        host.parts.push_back({"offloaded activations", "",
                              memory_bytes(figure(recomputed_blocks()) * figure(block_input()),
                                           "the offloaded activations")});
    }
    if (trained_.size() > 1) {
        const core::ComponentInventory& other =
            expert_inventory(components_, trained_.back(), job_.model);
        if (parked_on_disk) {
            host.parts.push_back({"expert read back from disk", "switch", held_weights(other)});
        } else {
            host.parts.push_back({"parked expert weights", "", resident_weights(other)});
        }
    }
    const bool offloaded = job_.optimizer.name == "adamw-cpu-offload";
    std::int64_t trainable = 0;
    if (job_.mode == "lora") {
        trainable =
            memory_count(figure(memory_->adapter_parameters(job_.lora.targets, job_.lora.rank)) *
                             static_cast<Figure>(trained_.size()),
                         "the adapters' parameters");
    } else {
        trainable = full_parameters();
        const std::int64_t swapped = swapped_parameters(trainable);
        if (swapped > 0) {
            const std::uint64_t gradients = of_stage(
                memory_bytes(figure(swapped) * figure(bytes_), "the swapped blocks' gradients"));
            host.parts.push_back({"swapped blocks' gradients", "", gradients});
            if (on_gpu()) {
                host.parts.push_back({"gradient staging", "", gradients});
            }
        }
    }
    if (offloaded && trainable > 0) {
        // Both moments of every trainable weight, a float32 master of each one on the GPU (or
        // held in 16 bits), and a staging buffer for each one on the GPU.
        const std::int64_t master = on_gpu() || (job_.mode == "full" && bytes_ < 4) ? 4 : 0;
        const std::int64_t staging = on_gpu() ? (job_.mode == "lora" ? 4 : bytes_) : 0;
        host.parts.push_back(
            {"optimizer state", "",
             of_stage(memory_bytes(figure(trainable) * figure(8 + master + staging),
                                   "the optimizer state"))});
    }
    return host;
}

// validation, in host memory: the training's, an expert parked on the disk read back for the
// pass, and an expert the job does not train, loaded on the host as the trained one is held.
PhaseMemory JobMemoryEstimator::host_validation(const PhaseMemory& host_train) const {
    PhaseMemory host{"validation", {}, job_.validation.prompts.empty()};
    for (const MemoryPart& part : host_train.parts) {
        if (part.name == "offloaded activations") {
            continue; // freed as each backward ends
        }
        if (part.stage.empty()) {
            host.parts.push_back(part);
        } else {
            host.parts.push_back({part.name, "", part.bytes}); // read back for the whole pass
        }
    }
    for (int expert = 0; expert < model_.experts(); ++expert) {
        if (std::find(trained_.begin(), trained_.end(), expert) == trained_.end()) {
            host.parts.push_back({"other expert weights", "",
                                  held_weights(expert_inventory(components_, expert, job_.model))});
        }
    }
    if (on_gpu()) {
        // The trained expert waits on the host while the text encoder and the VAE run.
        host.parts.push_back(
            {"transformer weights", "offloaded",
             resident_weights(expert_inventory(components_, trained_.front(), job_.model))});
    }
    return host;
}

// validation: rank 0 samples with the training state resident and the whole sequence. On a
// GPU the trainer's pipeline moves the transformers to the host while the text encoder, CLIP
// and the VAE run (the sampler's offload_idle), and brings one expert at a time to the device to
// denoise: the trained one, a second trained one, or one the job does not train (loaded on the
// host as the trained one is held).
PhaseMemory JobMemoryEstimator::validation(const PhaseMemory& train) const {
    PhaseMemory validation{"validation", {}, job_.validation.prompts.empty()};
    const bool offloads = on_gpu();
    for (MemoryPart part : train.parts) {
        if (part.name == "activations" || part.name == "offloaded activations in flight") {
            continue;
        }
        if (offloads &&
            (part.name == "transformer weights" || part.name == "swapped blocks in flight")) {
            part.stage = "denoise";
        }
        validation.parts.push_back(part);
    }
    for (int expert = 0; expert < model_.experts(); ++expert) {
        if (expert == trained_.front()) {
            continue;
        }
        const bool trained = std::find(trained_.begin(), trained_.end(), expert) != trained_.end();
        const core::ComponentInventory& other = expert_inventory(components_, expert, job_.model);
        // In turn with the first, as large, so no activations here.
        validation.parts.push_back(
            {trained ? "second expert weights" : "other expert weights",
             offloads ? "denoise_2" : "",
             models::add_memory_bytes(resident_weights(other), in_flight_weights(other),
                                      "the other expert's weights")});
    }
    const models::VideoShape own = model_.sample_shape();
    const models::VideoShape shape{job_.validation.frames > 0 ? job_.validation.frames : own.frames,
                                   job_.validation.height > 0 ? job_.validation.height : own.height,
                                   job_.validation.width > 0 ? job_.validation.width : own.width,
                                   1};
    if (estimate_.pipeline_parallel > 1) {
        validation.parts.push_back(
            {"whole transformer for sampling", "denoise",
             whole_weights(expert_inventory(components_, trained_.front(), job_.model))});
    }
    validation.parts.push_back(
        {"text encoder weights", "text",
         weight_bytes(require_component(components_, "text_encoder", job_.model), bytes_)});
    validation.parts.push_back({"text encoder activations", "text", text_activations()});
    if (image_encoder_) {
        validation.parts.push_back(
            {"image encoder weights", "image", weight_bytes(*image_encoder_, bytes_)});
    }
    validation.parts.push_back(
        {"denoising activations (CFG)", "denoise",
         memory_->forward_activation_bytes(bytes_, 2, memory_->tokens(shape))});
    validation.parts.push_back(
        {"VAE weights", "vae",
         weight_bytes(require_component(components_, "vae", job_.model), bytes_)});
    validation.parts.push_back(
        {"VAE decode activations", "vae",
         vae_window_bytes(encoders_, bytes_, shape.height, shape.width, job_.dataset.vae_tiling,
                          std::min(shape.frames, encoders_.vae_decode_frames), kVaeDecodeWidths)});
    return validation;
}

JobMemoryEstimate JobMemoryEstimator::estimate() {
    const PhaseMemory trained = train();
    estimate_.phases = {prepare(), trained, validation(trained)};
    const PhaseMemory host = host_train();
    estimate_.host_phases = {PhaseMemory{"prepare", {}, false}, host, host_validation(host)};
    for (const PhaseMemory& phase : estimate_.phases) {
        phase.total(); // refuses a sum past 2^63 here rather than in to_json
    }
    for (const PhaseMemory& phase : estimate_.host_phases) {
        phase.total();
    }
    return estimate_;
}

} // namespace

std::uint64_t PhaseMemory::total() const {
    const std::string what = "the " + phase + " phase";
    std::uint64_t resident = 0;
    std::map<std::string, std::uint64_t> stages;
    for (const MemoryPart& part : parts) {
        std::uint64_t& sum = part.stage.empty() ? resident : stages[part.stage];
        sum = models::add_memory_bytes(sum, part.bytes, what);
    }
    std::uint64_t largest = 0;
    for (const auto& [stage, bytes] : stages) {
        largest = std::max(largest, bytes);
    }
    return models::add_memory_bytes(resident, largest, what);
}

namespace {

std::uint64_t peak_of(const std::vector<PhaseMemory>& phases) {
    std::uint64_t peak = 0;
    for (const PhaseMemory& phase : phases) {
        peak = std::max(peak, phase.skipped ? 0 : phase.total());
    }
    return peak;
}

nlohmann::json phases_json(const std::vector<PhaseMemory>& phases) {
    nlohmann::json json = nlohmann::json::array();
    for (const PhaseMemory& phase : phases) {
        nlohmann::json parts = nlohmann::json::array();
        for (const MemoryPart& part : phase.parts) {
            parts.push_back({{"name", part.name}, {"stage", part.stage}, {"bytes", part.bytes}});
        }
        json.push_back({{"phase", phase.phase},
                        {"total", phase.total()},
                        {"skipped", phase.skipped},
                        {"parts", parts}});
    }
    return json;
}

} // namespace

std::uint64_t JobMemoryEstimate::peak() const {
    return peak_of(phases);
}

std::uint64_t JobMemoryEstimate::host_peak() const {
    return peak_of(host_phases);
}

nlohmann::json JobMemoryEstimate::to_json() const {
    nlohmann::json json = {{"processes", processes},
                           {"data_parallel", data_parallel},
                           {"sequence_parallel", sequence_parallel},
                           {"tensor_parallel", tensor_parallel},
                           {"pipeline_parallel", pipeline_parallel},
                           {"largest_bucket", {frames, height, width}},
                           {"swapped_blocks", swapped_blocks},
                           {"peak", peak()},
                           {"phases", phases_json(phases)},
                           {"host_peak", host_peak()},
                           {"host_phases", phases_json(host_phases)}};
    return json;
}

JobMemoryEstimate estimate_job_memory(const common::TrainingJob& job,
                                      const models::ModelFolder& model,
                                      const std::vector<core::ComponentInventory>& components,
                                      int processes) {
    return JobMemoryEstimator(job, model, components, processes).estimate();
}

} // namespace tuneframe::train
