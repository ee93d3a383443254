#include "engine/models/cogvideox/cogvideox_model_folder.h"

#include "engine/core/error.h"
#include "engine/diffusion/cogvideox_pipeline.h"
#include "engine/diffusion/prompt_encoder.h"
#include "engine/lora/comfyui_lora_keys.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_family.h"
#include "engine/models/cogvideox/cogvideox_training_objective.h"
#include "engine/models/cogvideox/cogvideox_transformer_memory.h"
#include "engine/models/cogvideox/cogvideox_video_autoencoder.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"

#include <torch/torch.h>

namespace tuneframe::models::cogvideox {
namespace {

namespace fs = std::filesystem;

const CogVideoXTransformer3DModelImpl& as_cogvideox(const DiffusionTransformerImpl& transformer) {
    const auto* model = dynamic_cast<const CogVideoXTransformer3DModelImpl*>(&transformer);
    if (!model) {
        throw core::Error(core::ErrorCode::Internal,
                          "a " + transformer.class_name() + " is not a CogVideoX transformer");
    }
    return *model;
}

} // namespace

CogVideoXModelFolder::CogVideoXModelFolder(diffusion::PipelineFolder folder)
    : ModelFolder(folder.root)
    , folder_(std::move(folder)) {}

std::string CogVideoXModelFolder::description() const {
    const Architecture* known = recognise_architecture(folder_.transformer_config);
    return known ? known->description : "CogVideoX transformer of a custom shape";
}

nlohmann::json CogVideoXModelFolder::summary() const {
    const auto& config = folder_.transformer_config;
    const Architecture* known = recognise_architecture(config);
    return {{"family", family()},
            {"name", known ? known->name : "custom"},
            {"description", description()},
            {"tasks", tasks()},
            {"layers", config.num_layers},
            {"heads", config.num_attention_heads},
            {"head_dim", config.attention_head_dim},
            {"width", config.inner_dim()},
            {"positions", positional_scheme(config)},
            {"parameters_from_config", config.parameter_count()},
            {"variant", folder_.image_to_video() ? "i2v" : "t2v"},
            {"in_channels", config.in_channels},
            {"out_channels", config.out_channels},
            {"latent_channels", folder_.vae_config.latent_channels},
            {"experts", 1}};
}

std::vector<std::string> CogVideoXModelFolder::tasks() const {
    return {folder_.image_to_video() ? "i2v" : "t2v"};
}

std::int64_t CogVideoXModelFolder::text_length() const {
    return folder_.transformer_config.max_text_seq_length;
}

LatentGeometry CogVideoXModelFolder::geometry() const {
    LatentGeometry g;
    g.latent_channels = folder_.vae_config.latent_channels;
    g.spatial_scale = folder_.spatial_scale();
    g.temporal_scale = folder_.temporal_scale();
    g.patch_frames = folder_.transformer_config.patch_size_t.value_or(1);
    g.patch_size = folder_.transformer_config.patch_size;
    return g;
}

VideoShape CogVideoXModelFolder::sample_shape() const {
    const auto& config = folder_.transformer_config;
    const std::int64_t spatial = folder_.spatial_scale();
    return {config.sample_frames, config.sample_height * spatial, config.sample_width * spatial, 1};
}

std::optional<VideoShapeProblem> CogVideoXModelFolder::video_shape_problem(std::int64_t frames,
                                                                           std::int64_t height,
                                                                           std::int64_t width,
                                                                           bool sampling) const {
    // Training takes every 4k+1 clip (1.5's odd latent counts are padded as THUDM pads them);
    // the pipelines make 8k+1 frames.
    const std::int64_t frames_step = (sampling ? 2 : 1) * folder_.temporal_scale();
    if (frames > 0 && (frames - 1) % frames_step != 0) {
        return VideoShapeProblem{"frames",
                                 "videos of " + std::to_string(frames) +
                                     " frames cannot be made; CogVideoX makes " +
                                     std::to_string(frames_step) + "k+1 frames.",
                                 "Use 49 (CogVideoX 1.0), 81 (1.5), or another count such as 9, "
                                 "17 or 25."};
    }
    const std::int64_t multiple = folder_.spatial_scale() * folder_.transformer_config.patch_size;
    for (const auto& [dimension, pixels, measure] :
         {std::tuple<const char*, std::int64_t, const char*>{"height", height, "high"},
          {"width", width, "wide"}}) {
        if (pixels > 0 && pixels % multiple != 0) {
            return VideoShapeProblem{dimension,
                                     "videos " + std::to_string(pixels) + " pixels " + measure +
                                         " cannot be made; sizes must be multiples of " +
                                         std::to_string(multiple) + ".",
                                     "Use 480 x 720 (CogVideoX 1.0) or 768 x 1360 (1.5), or 0 for "
                                     "the model's own size."};
        }
    }
    return std::nullopt;
}

SamplingDefaults CogVideoXModelFolder::sampling_defaults() const {
    // cogvideox-factory validates with the training DPM scheduler, 50 steps, guidance 6.
    return {"dpm", 50, 6.0, "", false};
}

fs::path CogVideoXModelFolder::transformer_folder(int) const {
    return folder_.transformer;
}

std::vector<std::string> CogVideoXModelFolder::pipeline_parts() const {
    return {"vae", "text_encoder", "tokenizer", "scheduler"};
}

DiffusionTransformer CogVideoXModelFolder::load_transformer(const TransformerLoadOptions& options,
                                                            int) const {
    return CogVideoXFamily().load_transformer(folder_.transformer, options);
}

fs::path CogVideoXModelFolder::save_transformer(const DiffusionTransformerImpl& transformer,
                                                const fs::path& folder) const {
    as_cogvideox(transformer);
    return save_transformer_folder(transformer, folder);
}

std::unique_ptr<ModelFolder> CogVideoXModelFolder::with_transformer(const fs::path& folder,
                                                                    int) const {
    return std::make_unique<CogVideoXModelFolder>(folder_.with_transformer(folder));
}

std::unique_ptr<TextEncoder>
CogVideoXModelFolder::text_encoder(const WeightsPlacement& placement) const {
    return std::make_unique<diffusion::PromptEncoder>(folder_.tokenizer, folder_.text_encoder,
                                                      placement);
}

std::unique_ptr<VideoAutoencoder> CogVideoXModelFolder::vae(const WeightsPlacement& placement,
                                                            bool tiling, bool slicing) const {
    return std::make_unique<CogVideoXVideoAutoencoder>(folder_.vae, placement,
                                                       VaeOptions{tiling, 0, 0, 0, 0, slicing});
}

ImageCondition CogVideoXModelFolder::image_condition() const {
    return folder_.image_to_video() ? ImageCondition::FirstFrame : ImageCondition::None;
}

std::unique_ptr<TrainingObjective>
CogVideoXModelFolder::objective(const common::TrainingJob& job,
                                const WeightsPlacement& placement) const {
    return std::make_unique<CogVideoXTrainingObjective>(folder_, job, placement);
}

std::unique_ptr<VideoSampler> CogVideoXModelFolder::sampler(const SamplerOptions& options) const {
    return std::make_unique<diffusion::CogVideoXPipeline>(folder_, options);
}

std::unique_ptr<TransformerMemory> CogVideoXModelFolder::transformer_memory() const {
    return std::make_unique<CogVideoXTransformerMemory>(folder_.transformer_config);
}

EncoderMemory CogVideoXModelFolder::encoder_memory() const {
    EncoderMemory memory;
    const AutoencoderKLCogVideoXConfig& vae = folder_.vae_config;
    if (!vae.block_out_channels.empty()) {
        memory.vae_channels = vae.block_out_channels.front();
    }
    // diffusers encodes 8 frames (the first window 9) and decodes 2 latent frames (8 pixel
    // frames) at a time, plus the causal convolutions' two cached frames.
    memory.vae_encode_frames = 11;
    memory.vae_decode_frames = 10;
    // Tiles are half the VAE's sample size, each with a sixth of overlap.
    memory.vae_tile_height = vae.sample_height / 2 * 7 / 6;
    memory.vae_tile_width = vae.sample_width / 2 * 7 / 6;
    memory.text_width = folder_.text_encoder_width;
    return memory;
}

TransformerInputs CogVideoXModelFolder::probe_inputs() const {
    // A size every architecture accepts: the learned position table of 5b-I2V only fits its own
    // sample size.
    const auto& config = folder_.transformer_config;
    const std::int64_t patch_t = config.patch_size_t.value_or(1);
    const bool learned = config.use_learned_positional_embeddings;
    const std::int64_t height = learned ? config.sample_height : 2 * config.patch_size;
    const std::int64_t width = learned ? config.sample_width : 2 * config.patch_size;
    const std::int64_t frames = learned ? config.sample_latent_frames() : 2 * patch_t;
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(1234);
    TransformerInputs inputs;
    inputs.hidden_states =
        at::randn({1, frames, config.in_channels, height, width}, generator, torch::kFloat);
    inputs.encoder_hidden_states =
        at::randn({1, 8, config.text_embed_dim}, generator, torch::kFloat);
    inputs.timestep = torch::tensor({500}, torch::kLong);
    if (config.ofs_embed_dim) {
        inputs.ofs = torch::full({1}, 2.0);
    }
    return inputs;
}

std::vector<std::string> CogVideoXModelFolder::default_lora_targets() const {
    return {"to_q", "to_k", "to_v", "to_out.0"};
}

std::vector<lora::LoRAKeyScheme> CogVideoXModelFolder::lora_key_schemes() const {
    return CogVideoXFamily().lora_key_schemes();
}

} // namespace tuneframe::models::cogvideox
