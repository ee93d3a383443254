#pragma once

#include "common/training_job.h"
#include "engine/lora/lora_key_scheme.h"
#include "engine/models/diffusion_transformer.h"
#include "engine/models/model_components.h"
#include "engine/models/module_weights.h"
#include "engine/models/training_objective.h"
#include "engine/models/transformer_memory.h"
#include "engine/models/video_sampler.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models {

// How pixels become latents and latents become tokens.
struct LatentGeometry {
    std::int64_t latent_channels = 16;
    std::int64_t spatial_scale = 8;  // pixels per latent row and column
    std::int64_t temporal_scale = 4; // pixel frames per latent frame after the first
    std::int64_t patch_frames = 1;   // latent frames per token
    std::int64_t patch_size = 2;     // latent rows and columns per token
};

// What image-to-video conditions on, and so what `prepare` encodes besides the clip.
enum class ImageCondition {
    None,
    FirstFrame, // the clean first frame (or the chosen frame) encoded alone
    // The first frame followed by zero frames to the clip's length (zeros in [-1, 1]: mid-grey,
    // as Wan 2.1's image-to-video pipeline pads its condition video).
    FirstFrameThenZeros,
};

// Why a video of some size cannot be made: which dimension ("frames", "height" or "width"), the
// problem ("videos of 50 frames cannot be made; CogVideoX makes 8k+1 frames.") and the fix.
struct VideoShapeProblem {
    std::string dimension;
    std::string message;
    std::string hint;
};

// The sampler settings a family's pipelines use by default (what validation and `sample` take
// when a job or a command line leaves them out).
struct SamplingDefaults {
    std::string sampler;
    int steps = 50;
    double guidance = 5.0;
    std::string negative_prompt;
    // Whether the pipeline takes an image-to-video picture at its own size and resizes it
    // itself (Wan: its CLIP sees the picture as given), or at the video's size.
    bool image_at_own_size = false;
};

// What the memory estimate needs of the VAE and the text encoder, from their configs.
struct EncoderMemory {
    std::int64_t vae_channels = 128; // of the VAE's first level, at full resolution
    // Pixel frames one encode / decode window of the causal VAE holds, caches included.
    std::int64_t vae_encode_frames = 11;
    std::int64_t vae_decode_frames = 10;
    // The largest tile, in pixels, when the job tiles the VAE.
    std::int64_t vae_tile_height = 280;
    std::int64_t vae_tile_width = 420;
    std::int64_t text_width = 4096; // the text encoder's d_model
};

// A model folder the engine can train and sample, opened by its family (ModelFamily::open)
// with every component's config read and checked before any weights are touched: a folder that
// lacks a part fails at once with the part and the fix named. Everything the trainer, prepare,
// validation, `sample`, `estimate`, `inspect`, `bench` and export need of a model comes through
// here, so none of them names a family.
class ModelFolder {
public:
    explicit ModelFolder(std::filesystem::path root)
        : root_(std::move(root)) {}
    virtual ~ModelFolder() = default;
    ModelFolder(const ModelFolder&) = delete;
    ModelFolder& operator=(const ModelFolder&) = delete;

    const std::filesystem::path& root() const { return root_; }
    virtual std::string family() const = 0;      // "cogvideox", "wan"
    virtual std::string description() const = 0; // "CogVideoX-5b (text-to-video, 3D rotary)"
    // The architecture's facts for `inspect`: variant, sizes, channels, experts, dtype...
    virtual nlohmann::json summary() const = 0;

    // The transformer's depth and heads, which the parallel plans split.
    virtual std::int64_t num_blocks() const = 0;
    virtual std::int64_t num_attention_heads() const = 0;
    // "t2v" and/or "i2v" (Wan 2.2 TI2V does both).
    virtual std::vector<std::string> tasks() const = 0;
    bool supports(const std::string& task) const;
    bool image_to_video() const { return supports("i2v"); }
    // The frame rate the model was trained at, for the videos it makes.
    virtual int default_fps() const = 0;
    // Tokens of the prompt embeddings the transformer is trained and sampled with.
    virtual std::int64_t text_length() const = 0;
    virtual LatentGeometry geometry() const = 0;
    // The model's own sample size, in pixels.
    virtual VideoShape sample_shape() const = 0;
    // Why a video of frames x height x width pixels cannot be trained on (encoded and denoised)
    // or, with `sampling`, made by the family's pipelines, or nothing when it can; a 0 leaves
    // that dimension unchecked.
    virtual std::optional<VideoShapeProblem> video_shape_problem(std::int64_t frames,
                                                                 std::int64_t height,
                                                                 std::int64_t width,
                                                                 bool sampling) const = 0;
    virtual SamplingDefaults sampling_defaults() const = 0;
    // The samplers this family's pipelines offer ("ddim", "dpm"; "unipc", "euler").
    virtual std::vector<std::string> samplers() const = 0;

    // The component folders, for cache keys, exports and messages.
    virtual std::filesystem::path transformer_folder(int expert = 0) const = 0;
    virtual std::filesystem::path vae_folder() const = 0;
    virtual std::filesystem::path text_encoder_folder() const = 0;
    virtual std::filesystem::path tokenizer_folder() const = 0;
    // Two-expert models (Wan 2.2 A14B): `transformer` for high noise, `transformer_2` for low.
    virtual int experts() const { return 1; }
    // Folder names under root() a whole-pipeline export links beside the trained transformer.
    virtual std::vector<std::string> pipeline_parts() const = 0;

    virtual DiffusionTransformer load_transformer(const TransformerLoadOptions& options,
                                                  int expert = 0) const = 0;
    // Writes `transformer` in the family's diffusers layout (config.json and the weights,
    // sharded, adapters excluded); returns the weight file or index written.
    virtual std::filesystem::path save_transformer(const DiffusionTransformerImpl& transformer,
                                                   const std::filesystem::path& folder) const = 0;
    // This model with another transformer folder of the same architecture in place of expert
    // `expert` (a full fine-tune's export, a merged LoRA); a BadInput error names the folder
    // and how it differs.
    virtual std::unique_ptr<ModelFolder> with_transformer(const std::filesystem::path& folder,
                                                          int expert = 0) const = 0;

    virtual std::unique_ptr<TextEncoder> text_encoder(const WeightsPlacement& placement) const = 0;
    virtual std::unique_ptr<VideoAutoencoder> vae(const WeightsPlacement& placement, bool tiling,
                                                  bool slicing) const = 0;
    virtual ImageCondition image_condition() const = 0;
    // The image encoder image-to-video also conditions on (Wan 2.1 I2V's CLIP); null when none.
    virtual std::unique_ptr<ImageEncoder> image_encoder(const WeightsPlacement& placement) const;
    // Its folder (with the processor's beside it), for cache keys; empty when none.
    virtual std::vector<std::filesystem::path> image_encoder_folders() const { return {}; }

    // The training objective for `job` (its task, timestep sampling, expert window...), making
    // batches on `placement`.
    virtual std::unique_ptr<TrainingObjective>
    objective(const common::TrainingJob& job, const WeightsPlacement& placement) const = 0;
    virtual std::unique_ptr<VideoSampler> sampler(const SamplerOptions& options) const = 0;
    virtual std::unique_ptr<TransformerMemory> transformer_memory() const = 0;
    virtual EncoderMemory encoder_memory() const = 0;
    // A fixed input every variant of the family accepts at a small size, for checking that an
    // export reproduces the model it came from (float32, on the CPU).
    virtual TransformerInputs probe_inputs() const = 0;

    // The layers a LoRA adapts unless the job says otherwise (PEFT patterns).
    virtual std::vector<std::string> default_lora_targets() const = 0;
    // The LoRA file layouts besides diffusers/PEFT that this family's tools load ("comfyui";
    // "wan", "musubi"), for export, and which `sample` and validation read.
    virtual std::vector<lora::LoRAKeyScheme> lora_key_schemes() const = 0;

private:
    std::filesystem::path root_;
};

} // namespace tuneframe::models
