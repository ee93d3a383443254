#include "engine/models/model_family.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/cogvideox/cogvideox_family.h"
#include "engine/models/wan/wan_family.h"

namespace tuneframe::models {
namespace {

namespace fs = std::filesystem;

std::string family_names() {
    std::string names;
    for (const auto& family : model_families()) {
        names += (names.empty() ? "" : ", ") + family->display_name();
    }
    return names;
}

// model_index.json, or for a folder made by hand without one, what its transformer's config
// says it is, in model_index.json's terms.
nlohmann::json model_index(const fs::path& root) {
    const fs::path index = root / "model_index.json";
    if (fs::is_regular_file(index)) {
        return core::read_json_file(index);
    }
    const fs::path transformer = root / "transformer" / "config.json";
    if (fs::is_regular_file(transformer)) {
        const nlohmann::json config = core::read_json_file(transformer);
        // Older hand-made CogVideoX folders name no class at all.
        return {{"transformer",
                 {"diffusers",
                  config.value("_class_name", std::string("CogVideoXTransformer3DModel"))}}};
    }
    return nlohmann::json::object();
}

} // namespace

std::vector<std::unique_ptr<ModelFamily>> model_families() {
    std::vector<std::unique_ptr<ModelFamily>> families;
    families.push_back(std::make_unique<cogvideox::CogVideoXFamily>());
    families.push_back(std::make_unique<wan::WanFamily>());
    return families;
}

std::unique_ptr<ModelFolder> open_model_folder(const fs::path& root) {
    if (!fs::is_directory(root)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder '" + root.string() + "' does not exist.",
                          "Check the path, or write a model with `tuneframe-engine init-model`.");
    }
    const nlohmann::json index = model_index(root);
    for (const auto& family : model_families()) {
        if (family->reads(index)) {
            return family->open(root);
        }
    }
    if (index.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The model folder '" + root.string() +
                              "' has neither model_index.json nor transformer/config.json.",
                          "Give the root of a diffusers pipeline (" + family_names() +
                              "), or write one with `tuneframe-engine init-model`.");
    }
    const std::string named = index.value("_class_name", std::string());
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + (root / "model_index.json").string() + "' names the pipeline '" +
                          (named.empty() ? index.dump() : named) +
                          "', which no model family of this engine reads.",
                      "Choose a pipeline of one of these families: " + family_names() + ".");
}

DiffusionTransformer load_transformer_at(const fs::path& path,
                                         const TransformerLoadOptions& options) {
    for (const auto& family : model_families()) {
        if (family->reads_transformer(path)) {
            return family->load_transformer(path, options);
        }
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + path.string() + "' is not a transformer this engine reads.",
                      "Give a diffusers transformer folder (config.json and its weights) of one of "
                      "these families: " +
                          family_names() + ".");
}

std::unique_ptr<VideoAutoencoder>
load_vae_at(const fs::path& folder, const WeightsPlacement& placement, const VaeOptions& options) {
    for (const auto& family : model_families()) {
        if (auto vae = family->load_vae(folder, placement, options)) {
            return vae;
        }
    }
    throw core::Error(core::ErrorCode::BadInput,
                      "'" + folder.string() + "' is not a VAE this engine reads.",
                      "Give a pipeline's vae/ folder (config.json and its weights) of one of "
                      "these families: " +
                          family_names() + ".");
}

std::vector<lora::LoRAKeyScheme> all_lora_key_schemes() {
    std::vector<lora::LoRAKeyScheme> schemes;
    for (const auto& family : model_families()) {
        for (lora::LoRAKeyScheme& scheme : family->lora_key_schemes()) {
            schemes.push_back(std::move(scheme));
        }
    }
    return schemes;
}

std::unique_ptr<ModelFamily> family_of_architecture(const std::string& name) {
    std::string known;
    for (auto& family : model_families()) {
        for (const Architecture& architecture : family->architectures()) {
            if (architecture.name == name) {
                return std::move(family);
            }
            known += (known.empty() ? "" : ", ") + architecture.name;
        }
    }
    throw core::Error(core::ErrorCode::Usage, "Unknown architecture '" + name + "'.",
                      "Choose one of: " + known + ".");
}

} // namespace tuneframe::models
