#pragma once

#include "engine/models/bench_model.h"
#include "engine/models/wan/wan_architectures.h"
#include "engine/models/wan/wan_pipeline_folder.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tuneframe::models::wan {

// A Wan architecture as `bench` builds and feeds it and `inspect` describes it: its facts are
// those of a pipeline of it held in memory (WanModelFolder, nothing on disk), and its step is
// WanTrainingObjective's flow matching on the first expert (both A14B experts have one shape).
class WanBenchModel : public BenchModel {
public:
    // `description` of architecture.info empty: the in-memory pipeline's own.
    explicit WanBenchModel(WanArchitecture architecture);

    std::string family() const override { return "wan"; }
    std::string architecture() const override { return architecture_.info.name; }
    std::string description() const override;
    nlohmann::json summary() const override;
    std::vector<std::string> tasks() const override;

    std::int64_t num_blocks() const override { return config().num_layers; }
    void set_num_blocks(std::int64_t blocks) override;
    std::int64_t width() const override { return config().inner_dim(); }
    std::int64_t text_width() const override { return config().text_dim; }
    std::int64_t latent_channels() const override { return architecture_.vae.z_dim; }
    std::int64_t parameters() const override { return config().parameter_count(); }
    std::int64_t text_length() const override;
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
    const WanTransformer3DConfig& config() const { return architecture_.experts.front(); }
    // The pipeline in memory: every expert, or the first alone (what a benchmark trains).
    WanPipelineFolder pipeline(bool all_experts) const;
    // CLIP tokens beside the text in cross-attention (Wan 2.1 I2V); 0 without.
    std::int64_t image_tokens() const;

    WanArchitecture architecture_;
};

// `wan-bench-cpu` (a small Wan 2.1-style transformer a 2-core CPU steps through in seconds), and
// the released sizes as ref_lora_step.py --model wan2.1-1.3b|wan2.1-14b|wan2.2-5b runs them:
// `wan2.1-1.3b-81x480x832`, `wan2.1-14b-81x480x832` and `wan2.2-5b-121x704x1280` (text-to-video,
// bf16, 512 text tokens).
std::vector<BenchShape> wan_bench_shapes();
// One of wan_architectures() or a bench shape's architecture; null for another name.
std::unique_ptr<BenchModel> wan_bench_model(const std::string& name);
// A diffusers Wan transformer folder, an original Wan-AI folder or an original / ComfyUI single
// file, from its config or its tensors' shapes alone; null when `path` is none of them.
std::unique_ptr<BenchModel> describe_wan_transformer(const std::filesystem::path& path);

} // namespace tuneframe::models::wan
