#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// The training job: what `prepare`, `train` and `launch` read from job.json and what the studio's
// presets fill in (a preset is a partial job, merged over the defaults). This file is its one
// definition; both programs compile it (docs/protocol.md, "Training job").
namespace tuneframe::common {

inline constexpr int kJobVersion = 1;

// The job's limits, one table for every field (job_field_limits()). The reader enforces it, so
// `estimate`, `train --check`, `prepare`, `train` and the studio's form (which reads its ranges
// from it) refuse the same jobs (docs/protocol.md, "Training job").
//
// The estimate's arithmetic (engine/train/job_memory_estimate.cpp) relies on these bounds:
// through an 8x VAE and 2x2 patches a sequence is at most 257 x 256 x 256 < 2^24 tokens, so
// batch (2^10) x tokens x a 16384-wide model (2^14) x 4 bytes < 2^50 leaves 2^13 for the
// widths x blocks factor in int64; frames x height x width < 2^35; sp_size x tp_size x pp_size
// <= 2^30 fits an int. What a model's config brings (its width, depth, VAE scale and channels)
// is the estimate's to guard.
inline constexpr std::int64_t kMaxBucketSide = 4096;   // pixels, height or width
inline constexpr std::int64_t kMaxBucketFrames = 1025; // 4k+1 frames
inline constexpr std::size_t kMaxBuckets = 32;         // per bucket list
inline constexpr std::int64_t kMaxBatchSize = 1024;
inline constexpr std::int64_t kMaxSteps = 100'000'000; // steps, and every step count
inline constexpr std::int64_t kMaxEpochs = 1'000'000;
inline constexpr std::int64_t kMaxGradientAccumulation = 4096;
inline constexpr std::int64_t kMaxLoraRank = 8192;
inline constexpr std::int64_t kMaxParallelSize = 1024; // each of sp, tp and pp
inline constexpr std::size_t kMaxValidationPrompts = 64;
inline constexpr std::size_t kMaxPromptBytes = 8192;
inline constexpr std::size_t kMaxPathBytes = 4096;    // PATH_MAX
inline constexpr std::size_t kMaxPathNameBytes = 255; // NAME_MAX: each name in a path
inline constexpr std::int64_t kMaxCudaDevice = 127;   // c10::DeviceIndex is 8 bits

enum class JobFieldType {
    Object,   // a group of fields, { ... }; its unknown fields are errors
    Integer,  // a whole number in [min_integer, max_integer]
    Number,   // a finite number in [minimum, maximum], or (minimum, maximum]
    Flag,     // true or false
    Text,     // a string of at most max_bytes bytes, no NUL
    Path,     // a Text naming a file or folder; each name in it at most kMaxPathNameBytes
    Choice,   // one of `choices`
    Texts,    // a list of min_items to max_items Texts
    Paths,    // a list of min_items to max_items Paths
    Integers, // a list of min_items to max_items Integers
    Sizes,    // a list of min_items to max_items [height, width] pairs of Integers
    Values,   // a list of min_items to max_items values of the job field it names (sweeps)
};

// What one field may hold. Null is refused unless `nullable` (the field has an unset state,
// which null writes); a missing field keeps its default.
struct JobFieldLimit {
    std::string field; // the dotted path, "optimizer.lr"
    JobFieldType type = JobFieldType::Object;
    std::int64_t min_integer = 0; // Integer, and each item of Integers and Sizes
    std::int64_t max_integer = 0;
    double minimum = 0; // Number
    double maximum = 0;
    bool minimum_excluded = false; // (minimum, maximum]
    std::size_t max_bytes = 0;     // Text and Path, and each item of Texts and Paths
    std::size_t min_items = 0;     // lists
    std::size_t max_items = 0;
    std::vector<std::string> choices;
    bool nullable = false;
};

// Every field of the job, objects before their fields, in to_json()'s order.
const std::vector<JobFieldLimit>& job_field_limits();
// The limit of one field ("optimizer.lr"); nullptr for a path the job has not.
const JobFieldLimit* find_job_field_limit(const std::string& field);
// find_job_field_limit() for a field that must exist: std::logic_error otherwise.
const JobFieldLimit& job_field_limit(const std::string& field);

// A job that cannot be used as it is. The message names the origin (a file), the field path
// ("optimizer.lr") and what is wrong; the hint says what to write instead.
class JobError : public std::runtime_error {
public:
    JobError(const std::string& message, std::string field, std::string hint);
    const std::string& field() const { return field_; }
    const std::string& hint() const { return hint_; }

private:
    std::string field_;
    std::string hint_;
};

struct DatasetSettings {
    std::string manifest;  // JSONL (common/dataset_manifest.h); relative to the job file
    std::string cache_dir; // latents and embeddings; empty: <run>/../../cache
    // Whether the manifest may name files outside its folder (absolute paths, "..", links
    // leaving it). The studio sets it for the manifests it exports from a project; a manifest
    // from elsewhere keeps its files inside its folder.
    bool allow_paths_outside = false;
    std::vector<std::pair<std::int64_t, std::int64_t>> resolution_buckets = {{480, 720}}; // HxW
    std::vector<std::int64_t> frame_buckets = {49};
    std::string resize_mode = "stretch"; // stretch | center_crop | random_crop
    double random_flip = 0.0;            // probability of a horizontal flip
    double caption_dropout = 0.0;        // probability of training on an empty caption
    bool vae_tiling = false;
    bool vae_slicing = false;
    // Image-to-video: the conditioning image's pixel noise exp(N(mean, std)) and the chance of
    // dropping the image latents altogether (cogvideox-factory's defaults).
    double image_noise_log_mean = -3.0;
    double image_noise_log_std = 0.5;
    double noised_image_dropout = 0.05;
};

struct LoraSettings {
    std::int64_t rank = 64;
    double alpha = 64;
    std::vector<std::string> targets = {"to_q", "to_k", "to_v", "to_out.0"};
    std::string init = "kaiming"; // kaiming | gaussian
    // How the frozen base transformer's Linear weights are stored while a LoRA trains:
    // none | int8 (weight-only, per output channel, every device) | fp8 (e4m3, per output
    // channel, CUDA with LibTorch 2). The adapter trains and exports against the unquantized base.
    std::string base_quantization = "none";
};

struct OptimizerSettings {
    std::string name = "adamw"; // adamw | adam | adamw8bit | adamw-cpu-offload | prodigy | came
    double lr = 1e-4;
    double beta1 = 0.9;
    double beta2 = 0.95;
    std::optional<double> beta3; // CAME (required there) and Prodigy
    double weight_decay = 1e-4;
    double eps = 1e-8;
};

struct LrScheduleSettings {
    // constant | constant_with_warmup | linear | cosine | cosine_with_restarts | polynomial
    std::string name = "constant";
    std::int64_t warmup_steps = 0;
    std::int64_t cycles = 1;
    double power = 1.0;
};

struct CheckpointSettings {
    std::int64_t every_steps = 500; // 0: only at the end and on `stop`
    std::int64_t keep = 3;          // newest checkpoints kept
};

struct ValidationSettings {
    std::int64_t every_steps = 0; // 0: no periodic validation
    bool at_start = false;        // also at step 0
    std::vector<std::string> prompts;
    std::vector<std::string> images; // image-to-video: one per prompt
    // Empty: the model family's own (CogVideoX: dpm, as the factory validates; Wan: unipc).
    std::string sampler;
    std::int64_t steps = 50;
    double guidance = 6.0;
    // Two-expert models (Wan 2.2 A14B): the low-noise expert's guidance; unset: `guidance`.
    std::optional<double> guidance_2;
    bool dynamic_cfg = false;
    std::int64_t frames = 0; // 0: the model's sample size
    std::int64_t height = 0;
    std::int64_t width = 0;
    std::uint64_t seed = 42;
};

// Flow-matching families (Wan): how each sample's noise level is drawn and its loss weighted,
// and which of a two-expert model's transformers train. CogVideoX ignores it.
struct FlowMatchingSettings {
    // How a uniform draw becomes a sigma: finetrainers (the shifted table's row, integer
    // timesteps) | diffusers (the same row, float timesteps) | direct (the shift formula).
    std::string sigma_source = "finetrainers";
    std::string density = "uniform"; // uniform | logit_normal | mode
    std::optional<double> shift;     // unset: the model's own (its scheduler's flow_shift)
    double logit_mean = 0.0;
    double logit_std = 1.0;
    double mode_scale = 1.29;
    std::string loss_weighting = "none"; // none | sigma_sqrt | cosmap
    // Wan 2.2 A14B: both (each step trains the expert its drawn noise level belongs to) |
    // high_noise | low_noise (one expert on its window of noise levels).
    std::string expert = "both";

    bool operator==(const FlowMatchingSettings& other) const;
};

// Where the weights of a model too large for the GPU wait while they are not in use.
struct MemorySettings {
    // The last N transformer blocks live in (pinned) host memory and are copied to the GPU one
    // block ahead of use, in forward, recomputation and backward (musubi-tuner's
    // --blocks_to_swap, diffusion-pipe's blocks_to_swap); 0: every block stays on the device.
    std::int64_t blocks_to_swap = 0;
    // Two-expert models training both experts in one process: where the expert that does not
    // train the current micro-batch waits: host (its weights in host memory) | disk (dropped and
    // read again from the model folder when its turn comes: slower, least host memory).
    std::string inactive_expert = "host";
    // With gradient checkpointing, each recomputed block's saved input (one token-width tensor a
    // block: 13 GB over Wan 14B's 40 blocks at 81x480x832) waits in (pinned) host memory between
    // forward and backward, copied back one block ahead of its recomputation (musubi-tuner's
    // --gradient_checkpointing_cpu_offload).
    bool offload_activations = false;

    bool operator==(const MemorySettings& other) const;
};

struct ParallelSettings {
    std::string plan = "ddp"; // ddp | zero1 | zero2 | hybrid
    std::int64_t sp_size = 1; // sequence-parallel ranks (hybrid)
    std::int64_t tp_size = 1; // tensor-parallel ranks (hybrid): Megatron-style sharded blocks
    // Pipeline stages (hybrid): each holds a run of the blocks, and the step's
    // gradient_accumulation batches flow through them as micro-batches on a 1F1B schedule.
    std::int64_t pp_size = 1;
    // How the data-parallel axis of a hybrid plan keeps optimizer state and gradients: 0 whole
    // on every replica (ddp), 1 state sharded (zero1), 2 state and gradients sharded (zero2).
    std::int64_t zero_stage = 0;
    // Gradients travel in buckets of about this size while backward runs (DDP's bucket_cap_mb,
    // DeepSpeed's reduce_bucket_size); ZeRO-2 holds at most its shard plus one bucket.
    double bucket_mb = 25;
    double timeout_s = 1800; // collectives that take longer fail (cogvideox-factory's nccl_timeout)
};

struct TrainingJob {
    int version = kJobVersion;
    std::string model;         // a diffusers pipeline folder; relative to the job file
    std::string mode = "lora"; // lora | full
    std::string task = "t2v";  // t2v | i2v
    DatasetSettings dataset;
    LoraSettings lora;
    OptimizerSettings optimizer;
    LrScheduleSettings lr_schedule;
    std::int64_t max_steps = 1000; // 0: run `epochs` epochs
    std::int64_t epochs = 0;
    std::int64_t batch_size = 1;
    std::int64_t gradient_accumulation = 1;
    double max_grad_norm = 1.0;     // 0: no clipping
    std::string precision = "bf16"; // bf16 | fp16 | fp32
    bool gradient_checkpointing = true;
    // With checkpointing, how many blocks recompute in backward (the first ones): unset = all.
    // Fewer trade memory for speed (each kept block skips its recomputed forward); a number past
    // the model's depth means all, so one preset serves 2b and 5b.
    std::optional<std::int64_t> checkpointed_blocks;
    // With checkpointing, recomputed blocks keep their attention outputs, so backward does not
    // run attention again: faster for one token-width of memory per block (LibTorch 2.6+;
    // older ones recompute it).
    bool checkpoint_keeps_attention = false;
    std::uint64_t seed = 42;
    std::string trigger_word; // prepended to every caption ("id token") and recorded on export
    CheckpointSettings checkpoints;
    ValidationSettings validation;
    FlowMatchingSettings flow_matching;
    MemorySettings memory;
    ParallelSettings parallel;
    std::string device = "auto"; // auto | cpu | cuda | cuda:N

    // Reads a whole job or a preset merged over the defaults: missing fields keep their
    // defaults, unknown fields and bad values are a JobError. `origin` names the source in
    // messages.
    static TrainingJob from_json(const nlohmann::json& json, const std::string& origin);
    // Every field, so a written job.json documents exactly what ran.
    nlohmann::json to_json() const;
};

// `overrides` merged into `base` object by object (arrays and values replace): how a preset
// and the studio's edits combine into a job.
nlohmann::json merge_job_json(nlohmann::json base, const nlohmann::json& overrides);

} // namespace tuneframe::common
