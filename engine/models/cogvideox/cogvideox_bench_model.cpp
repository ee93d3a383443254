#include "engine/models/cogvideox/cogvideox_bench_model.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/models/cogvideox/cogvideox_transformer_memory.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::cogvideox {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBenchCpu = "cogvideox-bench-cpu";
constexpr std::int64_t kMidTimestep = 500;

CogVideoXTransformer3DConfig bench_cpu_transformer() {
    CogVideoXTransformer3DConfig c = find_architecture("cogvideox-2b").transformer;
    c.num_attention_heads = 8;
    c.attention_head_dim = 64;
    c.num_layers = 4;
    c.text_embed_dim = 4096;
    c.time_embed_dim = 512;
    return c;
}

// A pipeline of this transformer held in memory (nothing on disk): what the family's folder
// knows of its tasks, sizes and objective, without files. Its VAE has the transformer's
// channels and the schedule is cogvideox-factory's training one.
diffusion::PipelineFolder in_memory_pipeline(const CogVideoXTransformer3DConfig& config) {
    diffusion::PipelineFolder folder;
    folder.transformer_config = config;
    folder.vae_config.latent_channels = config.out_channels;
    folder.text_encoder_width = config.text_embed_dim;
    diffusion::CogVideoXSchedulerConfig& scheduler = folder.scheduler_config;
    scheduler.prediction_type = diffusion::PredictionType::VPrediction;
    scheduler.rescale_betas_zero_snr = true;
    scheduler.timestep_spacing = diffusion::TimestepSpacing::Trailing;
    return folder;
}

std::string known_description(const CogVideoXTransformer3DConfig& config) {
    const Architecture* known = recognise_architecture(config);
    return known ? known->description : "CogVideoX transformer of a custom shape";
}

} // namespace

CogVideoXBenchModel::CogVideoXBenchModel(std::string name, std::string description,
                                         CogVideoXTransformer3DConfig config)
    : name_(std::move(name))
    , description_(description.empty() ? known_description(config) : std::move(description))
    , config_(std::move(config)) {}

nlohmann::json CogVideoXBenchModel::summary() const {
    nlohmann::json summary = CogVideoXModelFolder(in_memory_pipeline(config_)).summary();
    summary["name"] = name_;
    summary["description"] = description_;
    return summary;
}

std::vector<std::string> CogVideoXBenchModel::tasks() const {
    return CogVideoXModelFolder(in_memory_pipeline(config_)).tasks();
}

VideoShape CogVideoXBenchModel::sample_shape() const {
    // Each generation's own size: 1.5's config samples a 300 x 300 latent grid, which its
    // pipelines slice to 768 x 1360.
    if (config_.patch_size_t) {
        return {81, 768, 1360, 1};
    }
    return {config_.sample_frames, config_.sample_height * 8, config_.sample_width * 8, 1};
}

std::optional<VideoShapeProblem>
CogVideoXBenchModel::video_shape_problem(std::int64_t frames, std::int64_t height,
                                         std::int64_t width) const {
    return CogVideoXModelFolder(in_memory_pipeline(config_))
        .video_shape_problem(frames, height, width, false);
}

std::vector<std::string> CogVideoXBenchModel::lora_targets() const {
    return CogVideoXModelFolder(in_memory_pipeline(config_)).default_lora_targets();
}

std::unique_ptr<TransformerMemory> CogVideoXBenchModel::memory(std::int64_t text_tokens) const {
    CogVideoXTransformer3DConfig config = config_;
    config.max_text_seq_length = text_tokens;
    return std::make_unique<CogVideoXTransformerMemory>(config);
}

DiffusionTransformer CogVideoXBenchModel::build(c10::ScalarType dtype) const {
    return CogVideoXTransformer3DModel(config_, dtype).ptr();
}

BenchTraining CogVideoXBenchModel::training(const BenchBatchRequest& request,
                                            const WeightsPlacement& placement) const {
    const std::vector<std::string> offered = tasks();
    const std::string task = request.task.empty() ? offered.front() : request.task;
    if (std::find(offered.begin(), offered.end(), task) == offered.end()) {
        throw core::Error(core::ErrorCode::Usage,
                          description_ + " does not train for task '" + task + "'.",
                          "Use --task " + offered.front() + ".");
    }
    const std::int64_t text_tokens =
        request.text_tokens > 0 ? request.text_tokens : config_.max_text_seq_length;
    common::TrainingJob job;
    job.task = task;
    job.dataset.noised_image_dropout = 0;
    const CogVideoXModelFolder folder(in_memory_pipeline(config_));
    BenchTraining training{folder.objective(job, placement), {}};

    const VideoShape& video = request.video;
    TrainingExample example;
    example.latent_mean = torch::randn({config_.out_channels,
                                        (video.frames - 1) / config_.temporal_compression_ratio + 1,
                                        video.height / 8, video.width / 8}); // [C, F, h, w]
    example.latent_logvar = torch::zeros_like(example.latent_mean);
    if (task == "i2v") {
        example.image_mean = example.latent_mean.narrow(1, 0, 1).clone(); // [C, 1, h, w]
        example.image_logvar = torch::zeros_like(example.image_mean);
    }
    const at::Tensor prompt = torch::randn({text_tokens, config_.text_embed_dim});
    std::vector<SampleDraw> draws;
    for (std::int64_t i = 0; i < video.batch; ++i) {
        draws.push_back({&example, prompt, static_cast<std::uint64_t>(i), 0});
    }
    training.batch = training.objective->make_batch(draws);
    training.batch.timesteps.fill_(kMidTimestep);
    return training;
}

ForwardFlops CogVideoXBenchModel::forward_flops(const TrainingBatch& batch) const {
    const at::Tensor& latents = batch.latents; // [B, F, C, h, w]
    const std::int64_t patch_t = config_.patch_size_t.value_or(1);
    const std::int64_t video = (latents.size(1) / patch_t) *
                               (latents.size(3) / config_.patch_size) *
                               (latents.size(4) / config_.patch_size);
    // Text and video tokens go through every block together.
    const auto n = static_cast<double>(video + batch.prompt_embeds.size(1));
    const auto d = static_cast<double>(config_.inner_dim());
    const auto layers = static_cast<double>(config_.num_layers);
    const auto samples = static_cast<double>(latents.size(0));
    // q, k, v, out (4 d^2) and the 4d-wide feed-forward (8 d^2) per token; Q K^T and P V.
    return {samples * layers * 2 * n * (4 * d * d + 8 * d * d), samples * layers * 4 * n * n * d};
}

std::vector<BenchShape> cogvideox_bench_shapes() {
    return {
        // latents [1, 7, 16, 20, 30]
        {"bench-cpu", kBenchCpu, {25, 160, 240, 1}, 226, "cpu", "fp32"},
        {"2b-49x480x720", "cogvideox-2b", {49, 480, 720, 1}, 226, "auto", "bf16"},
        {"5b-49x480x720", "cogvideox-5b", {49, 480, 720, 1}, 226, "auto", "bf16"},
    };
}

std::unique_ptr<BenchModel> cogvideox_bench_model(const std::string& name) {
    if (name == kBenchCpu) {
        return std::make_unique<CogVideoXBenchModel>(
            name, "CogVideoX-2b-style transformer, 8 heads x 64, 4 layers (bench-cpu)",
            bench_cpu_transformer());
    }
    for (const Architecture& architecture : architectures()) {
        if (architecture.name == name) {
            return std::make_unique<CogVideoXBenchModel>(name, architecture.description,
                                                         architecture.transformer);
        }
    }
    return nullptr;
}

std::unique_ptr<BenchModel> describe_cogvideox_transformer(const fs::path& path) {
    const fs::path file = path / "config.json";
    if (!fs::is_directory(path) || !fs::is_regular_file(file)) {
        return nullptr;
    }
    // Only a config that names the class: other components' configs would parse as a default
    // transformer's.
    const nlohmann::json json = core::read_json_file(file);
    const auto name = json.is_object() ? json.find("_class_name") : json.end();
    if (name == json.end() || *name != "CogVideoXTransformer3DModel") {
        return nullptr;
    }
    const auto config = CogVideoXTransformer3DConfig::from_json(json, file.string());
    const Architecture* known = recognise_architecture(config);
    return std::make_unique<CogVideoXBenchModel>(known ? known->name : "custom", "", config);
}

} // namespace tuneframe::models::cogvideox
