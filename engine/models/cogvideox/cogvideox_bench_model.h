#pragma once

#include "engine/models/bench_model.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d_config.h"

#include <optional>
#include <string>
#include <vector>

namespace tuneframe::models::cogvideox {

// A CogVideoX transformer of `config` as `bench` builds and feeds it and `inspect` describes it:
// its facts and objective are those of a pipeline folder of that transformer held in memory
// (CogVideoXModelFolder), with cogvideox-factory's v-prediction schedule (zero terminal SNR,
// trailing timesteps).
class CogVideoXBenchModel : public BenchModel {
public:
    // `name`: the architecture's, or "custom"; `description` empty: the known one's.
    CogVideoXBenchModel(std::string name, std::string description,
                        CogVideoXTransformer3DConfig config);

    std::string family() const override { return "cogvideox"; }
    std::string architecture() const override { return name_; }
    std::string description() const override { return description_; }
    nlohmann::json summary() const override;
    std::vector<std::string> tasks() const override;

    std::int64_t num_blocks() const override { return config_.num_layers; }
    void set_num_blocks(std::int64_t blocks) override { config_.num_layers = blocks; }
    std::int64_t width() const override { return config_.inner_dim(); }
    std::int64_t text_width() const override { return config_.text_embed_dim; }
    std::int64_t latent_channels() const override { return config_.out_channels; }
    std::int64_t parameters() const override { return config_.parameter_count(); }
    std::int64_t text_length() const override { return config_.max_text_seq_length; }
    VideoShape sample_shape() const override;
    std::optional<VideoShapeProblem> video_shape_problem(std::int64_t frames, std::int64_t height,
                                                         std::int64_t width) const override;
    std::vector<std::string> lora_targets() const override;
    std::unique_ptr<TransformerMemory> memory(std::int64_t text_tokens) const override;

    DiffusionTransformer build(c10::ScalarType dtype) const override;
    BenchTraining training(const BenchBatchRequest& request,
                           const WeightsPlacement& placement) const override;
    ForwardFlops forward_flops(const TrainingBatch& batch) const override;

private:
    std::string name_;
    std::string description_;
    CogVideoXTransformer3DConfig config_;
};

// `bench-cpu` (ARCHITECTURE.md): a 2b-style transformer of 8 heads x 64 and 4 layers that a
// CPU steps through in seconds, and `2b-49x480x720`, `5b-49x480x720` (the released sizes, bf16,
// 226 text tokens, as ref_lora_step.py --model 2b|5b).
std::vector<BenchShape> cogvideox_bench_shapes();
// An architecture of architectures.h or a bench shape's; null for another name.
std::unique_ptr<BenchModel> cogvideox_bench_model(const std::string& name);
// A diffusers transformer folder whose config names CogVideoXTransformer3DModel; null otherwise.
std::unique_ptr<BenchModel> describe_cogvideox_transformer(const std::filesystem::path& path);

} // namespace tuneframe::models::cogvideox
