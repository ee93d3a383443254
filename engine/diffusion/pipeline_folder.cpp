#include "engine/diffusion/pipeline_folder.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/cogvideox/architectures.h"

namespace tuneframe::diffusion {
namespace {

namespace fs = std::filesystem;

fs::path component(const fs::path& root, const char* name, const char* required_file) {
    const fs::path folder = root / name;
    if (!fs::is_regular_file(folder / required_file)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder '" + root.string() + "' has no " + name + "/" +
                              required_file + ".",
                          "Give the root of a diffusers CogVideoX pipeline (the folder with "
                          "model_index.json, transformer/, vae/, text_encoder/, tokenizer/ and "
                          "scheduler/), or write one with `tuneframe-engine init-model`.");
    }
    return folder;
}

SamplerKind sampler_of_class(const nlohmann::json& config, const fs::path& file) {
    const std::string name = config.value("_class_name", std::string("CogVideoXDDIMScheduler"));
    if (name == "CogVideoXDDIMScheduler") {
        return SamplerKind::Ddim;
    }
    if (name == "CogVideoXDPMScheduler") {
        return SamplerKind::Dpm;
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + file.string() + "' names the scheduler class '" + name +
                          "', which CogVideoX sampling does not use.",
                      "Set _class_name to CogVideoXDDIMScheduler or CogVideoXDPMScheduler.");
}

} // namespace

SamplerKind parse_sampler(const std::string& name) {
    if (name == "ddim") {
        return SamplerKind::Ddim;
    }
    if (name == "dpm") {
        return SamplerKind::Dpm;
    }
    throw core::Error(core::ErrorCode::BadInput, "Unknown sampler '" + name + "'.",
                      "Use ddim (CogVideoX's default) or dpm.");
}

const char* sampler_name(SamplerKind kind) {
    return kind == SamplerKind::Ddim ? "ddim" : "dpm";
}

PipelineFolder PipelineFolder::open(const fs::path& root) {
    if (!fs::is_directory(root)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder '" + root.string() + "' does not exist.",
                          "Check the path, or write a model with `tuneframe-engine init-model`.");
    }
    PipelineFolder folder;
    folder.root = root;
    folder.transformer = component(root, "transformer", "config.json");
    folder.vae = component(root, "vae", "config.json");
    folder.text_encoder = component(root, "text_encoder", "config.json");
    folder.tokenizer = component(root, "tokenizer", "spiece.model");
    const fs::path scheduler = component(root, "scheduler", "scheduler_config.json");

    const fs::path transformer_file = folder.transformer / "config.json";
    folder.transformer_config = models::cogvideox::CogVideoXTransformer3DConfig::from_json(
        core::read_json_file(transformer_file), transformer_file.string());
    const fs::path vae_file = folder.vae / "config.json";
    folder.vae_config = models::AutoencoderKLCogVideoXConfig::from_json(
        core::read_json_file(vae_file), vae_file.string());
    const nlohmann::json text_config = core::read_json_file(folder.text_encoder / "config.json");
    folder.text_encoder_width = text_config.value("d_model", folder.text_encoder_width);
    const fs::path scheduler_file = scheduler / "scheduler_config.json";
    const nlohmann::json scheduler_json = core::read_json_file(scheduler_file);
    folder.scheduler_config =
        CogVideoXSchedulerConfig::from_json(scheduler_json, scheduler_file.string());
    folder.default_sampler = sampler_of_class(scheduler_json, scheduler_file);

    const std::int64_t latent = folder.vae_config.latent_channels;
    const auto& transformer = folder.transformer_config;
    if (transformer.out_channels != latent ||
        (transformer.in_channels != latent && transformer.in_channels != 2 * latent)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The transformer in '" + root.string() + "' takes " +
                              std::to_string(transformer.in_channels) + " and gives " +
                              std::to_string(transformer.out_channels) +
                              " channels, which does not fit a VAE with " + std::to_string(latent) +
                              " latent channels.",
                          "The transformer and vae folders come from different models; copy "
                          "both from the same pipeline.");
    }
    return folder;
}

PipelineFolder PipelineFolder::with_transformer(const fs::path& folder) const {
    const fs::path file = folder / "config.json";
    if (!fs::is_regular_file(file)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The transformer folder '" + folder.string() + "' has no config.json.",
                          "Give a diffusers transformer folder (config.json and its weights), "
                          "such as a full fine-tune's export or a merged LoRA.");
    }
    const auto config = models::cogvideox::CogVideoXTransformer3DConfig::from_json(
        core::read_json_file(file), file.string());
    if (!models::cogvideox::same_architecture(config, transformer_config)) {
        const auto shape = [](const models::cogvideox::CogVideoXTransformer3DConfig& c) {
            return std::to_string(c.num_layers) + " layers of " +
                   std::to_string(c.num_attention_heads) + " heads x " +
                   std::to_string(c.attention_head_dim) + ", " + std::to_string(c.in_channels) +
                   " input channels, " + models::cogvideox::positional_scheme(c);
        };
        throw core::Error(core::ErrorCode::BadInput,
                          "The transformer in '" + folder.string() + "' (" + shape(config) +
                              ") is not shaped like the one of the pipeline '" + root.string() +
                              "' (" + shape(transformer_config) + ").",
                          "Use a transformer fine-tuned from this pipeline's model, or the "
                          "pipeline folder it was trained from as --model.");
    }
    PipelineFolder replaced = *this;
    replaced.transformer = folder;
    replaced.transformer_config = config;
    return replaced;
}

bool PipelineFolder::image_to_video() const {
    return transformer_config.in_channels == 2 * vae_config.latent_channels;
}

} // namespace tuneframe::diffusion
