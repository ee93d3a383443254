#pragma once

#include "engine/models/diffusion_transformer.h"
#include "engine/models/model_folder.h"
#include "engine/models/training_objective.h"
#include "engine/models/transformer_memory.h"

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// What `bench` needs of a transformer architecture to time a LoRA training step without a model
// folder (the transformer built in memory with random weights, a batch of random prepared
// samples, the family's objective, the FLOPs of a forward and the memory arithmetic), and what
// `inspect` shows of a transformer known by its config alone. Each family makes them
// (ModelFamily::bench_model, ModelFamily::describe_transformer), so bench and inspect name none.
namespace tuneframe::models {

// Matmul FLOPs of one forward (2 per multiply-add), for MFU: the blocks' per-token Linears, and
// the attention products, which a recomputation that keeps attention outputs skips.
struct ForwardFlops {
    double linears = 0;
    double attention = 0;
};

// The batch a benchmark trains on: `video.batch` clips of video.frames x height x width pixels.
struct BenchBatchRequest {
    VideoShape video;
    std::int64_t text_tokens = 0; // 0: the model's text_length()
    std::string task;             // "t2v" or "i2v"; empty: the architecture's first task
};

// A step's objective and batch: the family's own training objective (what the trainer builds
// from a model folder) and a batch it made from random prepared samples, at a mid noise level.
struct BenchTraining {
    std::unique_ptr<TrainingObjective> objective;
    TrainingBatch batch;
};

// A named benchmark: an architecture at a size, as the reference step (ref_lora_step.py) runs
// the same model, so the two are timed side by side.
struct BenchShape {
    std::string name;         // "wan2.1-1.3b-81x480x832"
    std::string architecture; // what the family's bench_model() builds
    VideoShape video;
    std::int64_t text_tokens = 0; // 0: the model's
    std::string device = "auto";
    std::string precision = "bf16";
};

class BenchModel {
public:
    virtual ~BenchModel() = default;

    virtual std::string family() const = 0;       // "cogvideox", "wan"
    virtual std::string architecture() const = 0; // "wan2.1-t2v-1.3b", "custom" when unknown
    virtual std::string description() const = 0;
    // The architecture's facts, with the keys ModelFolder::summary() has.
    virtual nlohmann::json summary() const = 0;
    virtual std::vector<std::string> tasks() const = 0; // "t2v" and/or "i2v"

    virtual std::int64_t num_blocks() const = 0;
    // The same blocks stacked `blocks` deep (`bench --layers`): random weights build at any
    // depth, which lets a real width run where its whole depth would not fit.
    virtual void set_num_blocks(std::int64_t blocks) = 0;
    virtual std::int64_t width() const = 0;           // the blocks' hidden size
    virtual std::int64_t text_width() const = 0;      // of the prompt embeddings it reads
    virtual std::int64_t latent_channels() const = 0; // of the VAE it denoises for
    virtual std::int64_t parameters() const = 0;      // of one transformer, from the config
    virtual std::int64_t text_length() const = 0;     // prompt tokens it is trained with
    virtual VideoShape sample_shape() const = 0;      // its own size, in pixels
    // Why the family cannot train on clips of this size, or nothing when it can.
    virtual std::optional<VideoShapeProblem>
    video_shape_problem(std::int64_t frames, std::int64_t height, std::int64_t width) const = 0;
    // The layers a LoRA adapts (PEFT patterns), as the family's trainers and the reference do.
    virtual std::vector<std::string> lora_targets() const = 0;
    // The memory arithmetic for prompts of `text_tokens` tokens.
    virtual std::unique_ptr<TransformerMemory> memory(std::int64_t text_tokens) const = 0;

    // The transformer with random weights, on the CPU, its parameters allocated in `dtype`
    // directly (a real-size model never exists in float32 first).
    virtual DiffusionTransformer build(c10::ScalarType dtype) const = 0;
    virtual BenchTraining training(const BenchBatchRequest& request,
                                   const WeightsPlacement& placement) const = 0;
    virtual ForwardFlops forward_flops(const TrainingBatch& batch) const = 0;
};

// The named benchmark shapes of every family; `name` unknown: a Usage error listing them.
BenchShape find_bench_shape(const std::string& name);
std::vector<BenchShape> bench_shapes();
// The architecture `name` (any family's init-model name, or a bench shape's) built for a
// benchmark; a Usage error lists the architectures otherwise.
std::unique_ptr<BenchModel> find_bench_model(const std::string& name);
// The architecture of the transformer at `path` (a diffusers transformer folder or a family's
// original single file), from its config or tensor shapes alone; null when no family reads it.
std::unique_ptr<BenchModel> describe_transformer_at(const std::filesystem::path& path);

} // namespace tuneframe::models
