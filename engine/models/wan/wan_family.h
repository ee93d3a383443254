#pragma once

#include "engine/models/model_family.h"

namespace tuneframe::models::wan {

// Wan 2.1 (T2V 1.3B/14B, I2V 14B) and Wan 2.2 (TI2V-5B, T2V/I2V-A14B with two experts), from
// diffusers folders or, for a transformer alone, the original / ComfyUI single files; and their
// tiny test models.
class WanFamily : public ModelFamily {
public:
    std::string name() const override { return "wan"; }
    std::string display_name() const override { return "Wan"; }
    bool reads(const nlohmann::json& model_index) const override;
    std::unique_ptr<ModelFolder> open(const std::filesystem::path& root) const override;
    bool reads_transformer(const std::filesystem::path& path) const override;
    DiffusionTransformer
    load_transformer(const std::filesystem::path& path,
                     const models::TransformerLoadOptions& options) const override;
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

} // namespace tuneframe::models::wan
