#pragma once

#include "engine/models/model_family.h"

namespace tuneframe::models::cogvideox {

// CogVideoX 1.0 and 1.5 (2b, 5b, 5b-I2V, 1.5-5B, 1.5-5B-I2V) and their tiny test models.
class CogVideoXFamily : public ModelFamily {
public:
    std::string name() const override { return "cogvideox"; }
    std::string display_name() const override { return "CogVideoX"; }
    bool reads(const nlohmann::json& model_index) const override;
    std::unique_ptr<ModelFolder> open(const std::filesystem::path& root) const override;
    bool reads_transformer(const std::filesystem::path& path) const override;
    DiffusionTransformer load_transformer(const std::filesystem::path& path,
                                          const TransformerLoadOptions& options) const override;
    std::unique_ptr<VideoAutoencoder> load_vae(const std::filesystem::path& folder,
                                               const WeightsPlacement& placement,
                                               const VaeOptions& options) const override;
    std::vector<lora::LoRAKeyScheme> lora_key_schemes() const override;
    std::vector<models::Architecture> architectures() const override;
    InitModelResult init_model(const InitModelOptions& options) const override;
    std::unique_ptr<BenchModel> bench_model(const std::string& name) const override;
    std::vector<BenchShape> bench_shapes() const override;
    std::unique_ptr<BenchModel>
    describe_transformer(const std::filesystem::path& path) const override;
};

} // namespace tuneframe::models::cogvideox
