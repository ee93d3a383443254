#include "engine/models/wan/wan_family.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/core/text_affixes.h"
#include "engine/models/wan/lora_keys.h"
#include "engine/models/wan/original_keys.h"
#include "engine/models/wan/transformer_checkpoint.h"
#include "engine/models/wan/wan_architectures.h"
#include "engine/models/wan/wan_bench_model.h"
#include "engine/models/wan/wan_init_model.h"
#include "engine/models/wan/wan_model_folder.h"
#include "engine/models/wan/wan_video_autoencoder.h"

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

// The pipelines this family samples with; VACE, Animate and the video-to-video pipeline
// condition on inputs it does not prepare.
bool known_pipeline(const std::string& name) {
    return name == "WanPipeline" || name == "WanImageToVideoPipeline";
}

} // namespace

bool WanFamily::reads(const nlohmann::json& model_index) const {
    const std::string name = model_index.value("_class_name", std::string());
    if (core::starts_with(name, "Wan")) {
        if (!known_pipeline(name)) {
            throw core::Error(core::ErrorCode::Unsupported,
                              "The Wan pipeline '" + name + "' is not one this engine trains.",
                              "Choose a Wan text-to-video, image-to-video or TI2V pipeline "
                              "(WanPipeline, WanImageToVideoPipeline).");
        }
        return true;
    }
    const nlohmann::json transformer = model_index.value("transformer", nlohmann::json());
    return transformer.is_array() && transformer.size() == 2 && transformer[1].is_string() &&
           transformer[1].get<std::string>() == "WanTransformer3DModel";
}

std::unique_ptr<ModelFolder> WanFamily::open(const fs::path& root) const {
    return std::make_unique<WanModelFolder>(WanPipelineFolder::open(root));
}

bool WanFamily::reads_transformer(const fs::path& path) const {
    if (fs::is_directory(path)) {
        const fs::path config = path / "config.json";
        if (!fs::is_regular_file(config)) {
            return false;
        }
        const std::string name = core::read_json_file(config).value("_class_name", std::string());
        // Wan-AI's original folders name their model class WanModel.
        return name == "WanTransformer3DModel" || name == "WanModel";
    }
    if (path.extension() != ".safetensors" || !fs::is_regular_file(path)) {
        return false;
    }
    std::vector<std::string> names;
    for (const std::string& key : core::SafetensorsCheckpoint(path).names()) {
        names.push_back(diffusers_name(key));
    }
    return looks_like_wan_transformer(names);
}

DiffusionTransformer
WanFamily::load_transformer(const fs::path& path,
                            const models::TransformerLoadOptions& options) const {
    wan::TransformerLoadOptions load;
    load.dtype = options.dtype;
    load.device = options.device;
    load.quantization = options.quantization;
    return load_wan_transformer(path, load).ptr();
}

std::unique_ptr<VideoAutoencoder> WanFamily::load_vae(const std::filesystem::path& folder,
                                                      const WeightsPlacement& placement,
                                                      const VaeOptions& options) const {
    const std::filesystem::path config = folder / "config.json";
    if (!std::filesystem::is_regular_file(config) ||
        core::read_json_file(config).value("_class_name", std::string(std::string())) !=
            "AutoencoderKLWan") {
        return nullptr;
    }
    return std::make_unique<WanVideoAutoencoder>(folder, placement, options);
}

std::vector<lora::LoRAKeyScheme> WanFamily::lora_key_schemes() const {
    return wan_lora_key_schemes();
}

std::vector<models::Architecture> WanFamily::architectures() const {
    std::vector<models::Architecture> known;
    for (const WanArchitecture& architecture : wan_architectures()) {
        known.push_back(architecture.info);
    }
    return known;
}

InitModelResult WanFamily::init_model(const InitModelOptions& options) const {
    return write_wan_pipeline(find_wan_architecture(options.arch), options);
}

std::unique_ptr<BenchModel> WanFamily::bench_model(const std::string& name) const {
    return wan_bench_model(name);
}

std::vector<BenchShape> WanFamily::bench_shapes() const {
    return wan_bench_shapes();
}

std::unique_ptr<BenchModel>
WanFamily::describe_transformer(const std::filesystem::path& path) const {
    return describe_wan_transformer(path);
}

} // namespace tuneframe::models::wan
