#include "engine/models/cogvideox/cogvideox_family.h"

#include "engine/core/json_file.h"
#include "engine/core/text_affixes.h"
#include "engine/lora/comfyui_lora_keys.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_bench_model.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/cogvideox_video_autoencoder.h"
#include "engine/models/cogvideox/init_model.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"

namespace tuneframe::models::cogvideox {
namespace {} // namespace

bool CogVideoXFamily::reads(const nlohmann::json& model_index) const {
    // CogVideoXPipeline, CogVideoXImageToVideoPipeline, CogVideoXVideoToVideoPipeline...; a
    // folder made by hand may only name its transformer.
    if (core::starts_with(model_index.value("_class_name", std::string()), "CogVideoX")) {
        return true;
    }
    const nlohmann::json transformer = model_index.value("transformer", nlohmann::json());
    return transformer.is_array() && transformer.size() == 2 && transformer[1].is_string() &&
           transformer[1].get<std::string>() == "CogVideoXTransformer3DModel";
}

std::unique_ptr<ModelFolder> CogVideoXFamily::open(const std::filesystem::path& root) const {
    return std::make_unique<CogVideoXModelFolder>(diffusion::PipelineFolder::open(root));
}

bool CogVideoXFamily::reads_transformer(const std::filesystem::path& path) const {
    const std::filesystem::path config = path / "config.json";
    if (!std::filesystem::is_regular_file(config)) {
        return false;
    }
    // Hand-made configs (the golden sets' older ones among them) may name no class.
    return core::read_json_file(config).value("_class_name",
                                              std::string("CogVideoXTransformer3DModel")) ==
           "CogVideoXTransformer3DModel";
}

DiffusionTransformer
CogVideoXFamily::load_transformer(const std::filesystem::path& path,
                                  const TransformerLoadOptions& options) const {
    return load_cogvideox_transformer(path, options).ptr();
}

std::unique_ptr<VideoAutoencoder> CogVideoXFamily::load_vae(const std::filesystem::path& folder,
                                                            const WeightsPlacement& placement,
                                                            const VaeOptions& options) const {
    const std::filesystem::path config = folder / "config.json";
    if (!std::filesystem::is_regular_file(config) ||
        core::read_json_file(config).value("_class_name", std::string("AutoencoderKLCogVideoX")) !=
            "AutoencoderKLCogVideoX") {
        return nullptr;
    }
    return std::make_unique<CogVideoXVideoAutoencoder>(folder, placement, options);
}

std::vector<lora::LoRAKeyScheme> CogVideoXFamily::lora_key_schemes() const {
    return {lora::comfyui_key_scheme()};
}

std::vector<models::Architecture> CogVideoXFamily::architectures() const {
    std::vector<models::Architecture> known;
    for (const cogvideox::Architecture& a : cogvideox::architectures()) {
        known.push_back({a.name, a.description, a.pipeline_class, a.stored_dtype,
                         core::starts_with(a.name, "cogvideox-tiny")});
    }
    return known;
}

InitModelResult CogVideoXFamily::init_model(const InitModelOptions& options) const {
    return {cogvideox::init_model(options).components(),
            find_architecture(options.arch).transformer.parameter_count()};
}

std::unique_ptr<BenchModel> CogVideoXFamily::bench_model(const std::string& name) const {
    return cogvideox_bench_model(name);
}

std::vector<BenchShape> CogVideoXFamily::bench_shapes() const {
    return cogvideox_bench_shapes();
}

std::unique_ptr<BenchModel>
CogVideoXFamily::describe_transformer(const std::filesystem::path& path) const {
    return describe_cogvideox_transformer(path);
}

} // namespace tuneframe::models::cogvideox
