#include "engine/models/wan/wan_pipeline_folder.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void bad_pipeline_input(const std::string& message, const std::string& hint) {
    throw core::Error(core::ErrorCode::BadInput, message, hint);
}

fs::path component_folder(const fs::path& root, const std::string& name,
                          const char* required_file) {
    const fs::path folder = root / name;
    if (!fs::is_regular_file(folder / required_file)) {
        bad_pipeline_input(
            "The Wan model folder '" + root.string() + "' has no " + name + "/" + required_file +
                ".",
            "Give the root of a diffusers Wan pipeline (Wan-AI/Wan2.x-...-Diffusers: the "
            "folder with model_index.json, transformer/, vae/, text_encoder/, tokenizer/ "
            "and scheduler/), or write one with `tuneframe-engine init-model`.");
    }
    return folder;
}

// Whether model_index.json lists a component_folder (diffusers writes [null, null] for an absent
// optional one, such as transformer_2 of a single-expert pipeline).
bool lists(const nlohmann::json& index, const char* name) {
    const auto it = index.find(name);
    return it != index.end() && it->is_array() && it->size() == 2 && !(*it)[0].is_null();
}

WanTransformer3DConfig read_transformer_config(const fs::path& folder) {
    const fs::path file = folder / "config.json";
    return WanTransformer3DConfig::from_json(core::read_json_file(file), file.string());
}

std::string transformer_shape_text(const WanTransformer3DConfig& c) {
    return std::to_string(c.num_layers) + " blocks of " + std::to_string(c.num_attention_heads) +
           " heads x " + std::to_string(c.attention_head_dim) + ", " +
           std::to_string(c.in_channels) + " input channels";
}

bool same_shape(const WanTransformer3DConfig& a, const WanTransformer3DConfig& b) {
    return a.to_json() == b.to_json();
}

void check_channels(const WanPipelineFolder& folder) {
    const std::int64_t z = folder.latent_channels();
    for (std::size_t i = 0; i < folder.transformer_configs.size(); ++i) {
        const WanTransformer3DConfig& c = folder.transformer_configs[i];
        const bool text_only = c.in_channels == z;
        // Image-to-video: the noise, a 4-channel first-frame mask and the condition latents.
        const bool conditioned = c.in_channels == 2 * z + 4;
        if (c.out_channels != z || !(text_only || conditioned)) {
            bad_pipeline_input(
                "The transformer in '" + folder.transformers[i].string() + "' takes " +
                    std::to_string(c.in_channels) + " and gives " + std::to_string(c.out_channels) +
                    " channels, which does not fit a VAE with " + std::to_string(z) +
                    " latent channels.",
                "The transformer and vae folders come from different Wan models; copy "
                "both from the same pipeline.");
        }
    }
}

void check_experts(const WanPipelineFolder& folder) {
    if (folder.experts() > 1 && !folder.boundary_ratio) {
        bad_pipeline_input(
            "'" + (folder.root / "model_index.json").string() +
                "' lists transformer_2 but no boundary_ratio, so it does not say when "
                "the second expert takes over.",
            "Set boundary_ratio (0.875 for Wan2.2-T2V-A14B, 0.9 for I2V-A14B).");
    }
    if (folder.experts() == 1 && folder.boundary_ratio) {
        bad_pipeline_input("'" + (folder.root / "model_index.json").string() +
                               "' sets boundary_ratio for two experts, but the folder has no "
                               "transformer_2/.",
                           "Download the whole Wan 2.2 A14B pipeline (both transformer/ and "
                           "transformer_2/), or remove boundary_ratio for a single-expert model.");
    }
    if (folder.experts() > 1 &&
        !same_shape(folder.transformer_configs[0], folder.transformer_configs[1])) {
        bad_pipeline_input(
            "The two experts of '" + folder.root.string() + "' are shaped differently (" +
                transformer_shape_text(folder.transformer_configs[0]) + " against " +
                transformer_shape_text(folder.transformer_configs[1]) + ").",
            "Both transformer/ and transformer_2/ must come from the same Wan 2.2 A14B "
            "release.");
    }
}

} // namespace

WanPipelineFolder WanPipelineFolder::open(const fs::path& root) {
    if (!fs::is_directory(root)) {
        bad_pipeline_input("The model folder '" + root.string() + "' does not exist.",
                           "Check the path, or write a model with `tuneframe-engine init-model`.");
    }
    WanPipelineFolder folder;
    folder.root = root;
    const fs::path index_file = root / "model_index.json";
    const nlohmann::json index = fs::is_regular_file(index_file) ? core::read_json_file(index_file)
                                                                 : nlohmann::json::object();
    folder.pipeline_class = index.value("_class_name", std::string("WanPipeline"));
    folder.transformers.push_back(component_folder(root, "transformer", "config.json"));
    if (lists(index, "transformer_2")) {
        folder.transformers.push_back(component_folder(root, "transformer_2", "config.json"));
    }
    for (const fs::path& transformer : folder.transformers) {
        folder.transformer_configs.push_back(read_transformer_config(transformer));
    }
    folder.vae = component_folder(root, "vae", "config.json");
    folder.text_encoder = component_folder(root, "text_encoder", "config.json");
    folder.tokenizer = component_folder(root, "tokenizer", "spiece.model");
    const fs::path scheduler = component_folder(root, "scheduler", "scheduler_config.json");
    folder.scheduler_config_file = scheduler / "scheduler_config.json";
    folder.scheduler_class = core::read_json_file(folder.scheduler_config_file)
                                 .value("_class_name", std::string("UniPCMultistepScheduler"));
    const fs::path vae_file = folder.vae / "config.json";
    folder.vae_config =
        AutoencoderKLWanConfig::from_json(core::read_json_file(vae_file), vae_file.string());
    const nlohmann::json text = core::read_json_file(folder.text_encoder / "config.json");
    folder.text_encoder_width = text.value("d_model", folder.text_encoder_width);
    if (const auto ratio = index.find("boundary_ratio");
        ratio != index.end() && !ratio->is_null()) {
        folder.boundary_ratio = ratio->get<double>();
    }
    folder.expand_timesteps = index.value("expand_timesteps", false);
    if (folder.transformer_config().image_dim) {
        folder.image_encoder = component_folder(root, "image_encoder", "config.json");
        folder.image_processor =
            component_folder(root, "image_processor", "preprocessor_config.json");
    }
    check_channels(folder);
    check_experts(folder);
    if (folder.expand_timesteps &&
        folder.transformer_config().in_channels != folder.latent_channels()) {
        bad_pipeline_input(
            "'" + index_file.string() +
                "' sets expand_timesteps (Wan 2.2 TI2V), but its transformer takes " +
                std::to_string(folder.transformer_config().in_channels) +
                " channels instead of the latents' " + std::to_string(folder.latent_channels()) +
                ".",
            "Check that model_index.json and transformer/ come from the same release.");
    }
    return folder;
}

WanPipelineFolder WanPipelineFolder::with_transformer(const fs::path& folder, int expert) const {
    if (expert < 0 || expert >= experts()) {
        bad_pipeline_input("'" + root.string() + "' has " + std::to_string(experts()) +
                               " transformer(s); there is no expert " + std::to_string(expert + 1) +
                               " to replace.",
                           "Give --transformer-2 only for a Wan 2.2 A14B pipeline.");
    }
    if (!fs::is_regular_file(folder / "config.json")) {
        bad_pipeline_input(
            "The transformer folder '" + folder.string() + "' has no config.json.",
            "Give a diffusers transformer folder (config.json and its weights), such as "
            "a full fine-tune's export or a merged LoRA.");
    }
    const WanTransformer3DConfig config = read_transformer_config(folder);
    const WanTransformer3DConfig& own = transformer_configs[static_cast<std::size_t>(expert)];
    if (!same_shape(config, own)) {
        bad_pipeline_input(
            "The transformer in '" + folder.string() + "' (" + transformer_shape_text(config) +
                ") is not shaped like the one of the pipeline '" + root.string() + "' (" +
                transformer_shape_text(own) + ").",
            "Use a transformer fine-tuned from this pipeline's model, or the pipeline "
            "folder it was trained from as --model.");
    }
    WanPipelineFolder replaced = *this;
    replaced.transformers[static_cast<std::size_t>(expert)] = folder;
    return replaced;
}

VideoShape WanPipelineFolder::sample_shape() const {
    if (spatial_scale() == 16) {
        return {121, 704, 1280, 1};
    }
    return {81, 480, 832, 1};
}

WanVariant WanPipelineFolder::variant() const {
    if (expand_timesteps) {
        return WanVariant::TextImageToVideo;
    }
    if (transformer_config().in_channels == latent_channels()) {
        return WanVariant::TextToVideo;
    }
    return transformer_config().image_dim ? WanVariant::ImageToVideo : WanVariant::ImageToVideoA14B;
}

} // namespace tuneframe::models::wan
