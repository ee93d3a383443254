#pragma once

#include "engine/models/model_folder.h"
#include "engine/models/wan/wan_pipeline_folder.h"

namespace tuneframe::models::wan {

// A Wan 2.1 / 2.2 pipeline folder (every released variant: T2V, I2V, TI2V, the A14B experts)
// behind the engine's model interface.
class WanModelFolder : public ModelFolder {
public:
    explicit WanModelFolder(WanPipelineFolder folder);

    const WanPipelineFolder& pipeline() const { return folder_; }

    std::string family() const override { return "wan"; }
    std::string description() const override;
    nlohmann::json summary() const override;
    std::int64_t num_blocks() const override { return folder_.transformer_config().num_layers; }
    std::int64_t num_attention_heads() const override {
        return folder_.transformer_config().num_attention_heads;
    }
    std::vector<std::string> tasks() const override;
    int default_fps() const override;
    std::int64_t text_length() const override;
    LatentGeometry geometry() const override;
    VideoShape sample_shape() const override;
    std::optional<VideoShapeProblem> video_shape_problem(std::int64_t frames, std::int64_t height,
                                                         std::int64_t width,
                                                         bool sampling) const override;
    SamplingDefaults sampling_defaults() const override;
    std::vector<std::string> samplers() const override { return {"unipc", "euler"}; }

    std::filesystem::path transformer_folder(int expert = 0) const override;
    std::filesystem::path vae_folder() const override { return folder_.vae; }
    std::filesystem::path text_encoder_folder() const override { return folder_.text_encoder; }
    std::filesystem::path tokenizer_folder() const override { return folder_.tokenizer; }
    int experts() const override { return folder_.experts(); }
    std::vector<std::string> pipeline_parts() const override;

    DiffusionTransformer load_transformer(const models::TransformerLoadOptions& options,
                                          int expert = 0) const override;
    std::filesystem::path save_transformer(const DiffusionTransformerImpl& transformer,
                                           const std::filesystem::path& folder) const override;
    std::unique_ptr<ModelFolder> with_transformer(const std::filesystem::path& folder,
                                                  int expert = 0) const override;

    std::unique_ptr<TextEncoder> text_encoder(const WeightsPlacement& placement) const override;
    std::unique_ptr<VideoAutoencoder> vae(const WeightsPlacement& placement, bool tiling,
                                          bool slicing) const override;
    ImageCondition image_condition() const override;
    std::unique_ptr<ImageEncoder> image_encoder(const WeightsPlacement& placement) const override;
    std::vector<std::filesystem::path> image_encoder_folders() const override;
    std::unique_ptr<TrainingObjective> objective(const common::TrainingJob& job,
                                                 const WeightsPlacement& placement) const override;
    std::unique_ptr<VideoSampler> sampler(const SamplerOptions& options) const override;
    std::unique_ptr<TransformerMemory> transformer_memory() const override;
    EncoderMemory encoder_memory() const override;
    TransformerInputs probe_inputs() const override;

    std::vector<std::string> default_lora_targets() const override;
    std::vector<lora::LoRAKeyScheme> lora_key_schemes() const override;

    // The flow shift the model's scheduler samples with (3.0 at 480p, 5.0 at 720p).
    double flow_shift() const;

private:
    WanPipelineFolder folder_;
};

} // namespace tuneframe::models::wan
