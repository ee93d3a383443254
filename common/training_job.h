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
