#pragma once

#include "engine/models/bench_model.h"
#include "engine/models/model_folder.h"

#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models {

// A model `init-model` can write: a tiny one for tests and the demo, or a real-size one (random
// weights) for benchmarks and memory checks.
struct Architecture {
    std::string name;           // "cogvideox-5b", "wan2.1-t2v-1.3b"
    std::string description;    // "CogVideoX-5b (text-to-video, 3D rotary)"
    std::string pipeline_class; // model_index.json's _class_name
    std::string stored_dtype;   // the released checkpoints' dtype: "fp32", "fp16" or "bf16"
    bool tiny = false;          // written whole (every component) and fast, for tests and demos
};

struct InitModelOptions {
    std::string arch;
    std::filesystem::path out;
    std::optional<c10::ScalarType> dtype; // unset: the released checkpoints' dtype (tiny: fp32)
    std::uint64_t seed = 0;
    std::uint64_t max_shard_bytes = 5'000'000'000;
    // For the real architectures: also random encoders and VAE of the released sizes, a small
    // tokenizer and the scheduler, so a whole pipeline runs offline. Tiny ones are complete.
    bool complete = false;
};

struct InitModelResult {
    std::vector<std::string> components; // as model_index.json lists them
    std::int64_t transformer_parameters = 0;
};

// One model family (CogVideoX, Wan, ...): a folder under engine/models/ whose files mirror
// diffusers' module tree, behind this interface. docs/architecture.md says how to add one.
class ModelFamily {
public:
    virtual ~ModelFamily() = default;

    virtual std::string name() const = 0;         // "cogvideox"
    virtual std::string display_name() const = 0; // "CogVideoX"
    // Whether a pipeline folder whose model_index.json is `model_index` is this family's (by its
    // `_class_name`).
    virtual bool reads(const nlohmann::json& model_index) const = 0;
    virtual std::unique_ptr<ModelFolder> open(const std::filesystem::path& root) const = 0;

    // Whether `path` holds this family's transformer: a diffusers transformer folder (by its
    // config's _class_name) or a single checkpoint file in the family's original layout.
    virtual bool reads_transformer(const std::filesystem::path& path) const = 0;
    virtual DiffusionTransformer load_transformer(const std::filesystem::path& path,
                                                  const TransformerLoadOptions& options) const = 0;

    // The family's VAE in `folder` (a pipeline's vae/), or null when its config names another
    // family's class.
    virtual std::unique_ptr<VideoAutoencoder> load_vae(const std::filesystem::path& folder,
                                                       const WeightsPlacement& placement,
                                                       const VaeOptions& options) const = 0;

    // The kohya-style LoRA layouts the family's tools read (ModelFolder::lora_key_schemes gives
    // the same for an opened folder).
    virtual std::vector<lora::LoRAKeyScheme> lora_key_schemes() const = 0;

    virtual std::vector<Architecture> architectures() const = 0;
    // Writes a random model of `options.arch` (one of architectures()) in diffusers' layout.
    virtual InitModelResult init_model(const InitModelOptions& options) const = 0;

    // `bench` and `inspect`, which name no family. The architecture `name` (one of
    // architectures(), or an architecture a bench shape names) as a benchmark builds it; null
    // when the name is not this family's.
    virtual std::unique_ptr<BenchModel> bench_model(const std::string& name) const = 0;
    // The benchmark shapes this family names (`bench --shape`).
    virtual std::vector<BenchShape> bench_shapes() const = 0;
    // The architecture of the transformer at `path` (what reads_transformer() accepts), from its
    // config or its tensors' shapes alone, nothing loaded; null when `path` is not this family's.
    virtual std::unique_ptr<BenchModel>
    describe_transformer(const std::filesystem::path& path) const = 0;
};

// Every family the engine has, in the order a folder is offered to them.
std::vector<std::unique_ptr<ModelFamily>> model_families();

// Opens a model folder with the family its model_index.json names. A folder without one, or
// naming a pipeline no family reads, is a BadInput error naming the file, the class and the
// families there are.
std::unique_ptr<ModelFolder> open_model_folder(const std::filesystem::path& root);

// The transformer at `path` (a diffusers transformer folder, or a family's original single
// file), loaded by the family that reads it; a BadInput error names the path otherwise.
DiffusionTransformer load_transformer_at(const std::filesystem::path& path,
                                         const TransformerLoadOptions& options);

// The VAE in `folder` (a pipeline's vae/), loaded by the family whose class its config names; a
// BadInput error names the folder otherwise.
std::unique_ptr<VideoAutoencoder> load_vae_at(const std::filesystem::path& folder,
                                              const WeightsPlacement& placement,
                                              const VaeOptions& options);

// Every family's LoRA layouts, for a transformer whose family is not at hand.
std::vector<lora::LoRAKeyScheme> all_lora_key_schemes();

// The family that writes architecture `name`; a Usage error lists every architecture.
std::unique_ptr<ModelFamily> family_of_architecture(const std::string& name);

} // namespace tuneframe::models
