#pragma once

#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/model_folder.h"

namespace tuneframe::models::cogvideox {

// A CogVideoX pipeline folder (CogVideoXPipeline, CogVideoXImageToVideoPipeline; 1.0 and 1.5)
// behind the engine's model interface.
class CogVideoXModelFolder : public ModelFolder {
public:
    explicit CogVideoXModelFolder(diffusion::PipelineFolder folder);

    // The pipeline's own configs, for CogVideoX code (the family's pipelines and tests).
    const diffusion::PipelineFolder& pipeline() const { return folder_; }

    std::string family() const override { return "cogvideox"; }
    std::string description() const override;
    nlohmann::json summary() const override;
    std::int64_t num_blocks() const override { return folder_.transformer_config.num_layers; }
    std::int64_t num_attention_heads() const override {
        return folder_.transformer_config.num_attention_heads;
    }
    std::vector<std::string> tasks() const override;
    int default_fps() const override { return folder_.default_fps(); }
    std::int64_t text_length() const override;
    LatentGeometry geometry() const override;
    VideoShape sample_shape() const override;
    std::optional<VideoShapeProblem> video_shape_problem(std::int64_t frames, std::int64_t height,
                                                         std::int64_t width,
                                                         bool sampling) const override;
    SamplingDefaults sampling_defaults() const override;
    std::vector<std::string> samplers() const override { return {"ddim", "dpm"}; }

    std::filesystem::path transformer_folder(int expert = 0) const override;
    std::filesystem::path vae_folder() const override { return folder_.vae; }
    std::filesystem::path text_encoder_folder() const override { return folder_.text_encoder; }
    std::filesystem::path tokenizer_folder() const override { return folder_.tokenizer; }
    std::vector<std::string> pipeline_parts() const override;

    DiffusionTransformer load_transformer(const TransformerLoadOptions& options,
                                          int expert = 0) const override;
    std::filesystem::path save_transformer(const DiffusionTransformerImpl& transformer,
                                           const std::filesystem::path& folder) const override;
    std::unique_ptr<ModelFolder> with_transformer(const std::filesystem::path& folder,
                                                  int expert = 0) const override;

    std::unique_ptr<TextEncoder> text_encoder(const WeightsPlacement& placement) const override;
    std::unique_ptr<VideoAutoencoder> vae(const WeightsPlacement& placement, bool tiling,
                                          bool slicing) const override;
    ImageCondition image_condition() const override;
    std::unique_ptr<TrainingObjective> objective(const common::TrainingJob& job,
                                                 const WeightsPlacement& placement) const override;
    std::unique_ptr<VideoSampler> sampler(const SamplerOptions& options) const override;
    std::unique_ptr<TransformerMemory> transformer_memory() const override;
    EncoderMemory encoder_memory() const override;
    TransformerInputs probe_inputs() const override;

    std::vector<std::string> default_lora_targets() const override;
    std::vector<lora::LoRAKeyScheme> lora_key_schemes() const override;

private:
    diffusion::PipelineFolder folder_;
};

} // namespace tuneframe::models::cogvideox
