#include "engine/models/wan/wan_bench_model.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_checkpoint.h"
#include "engine/models/wan/original_keys.h"
#include "engine/models/wan/transformer_wan.h"
#include "engine/models/wan/wan_model_folder.h"
#include "engine/models/wan/wan_prompt_encoder.h"
#include "engine/models/wan/wan_training_objective.h"
#include "engine/models/wan/wan_transformer_memory.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

namespace fs = std::filesystem;

constexpr const char* kBenchCpu = "wan-bench-cpu";
// CLIP ViT-H/14's tokens for a 224 x 224 picture: 16 x 16 patches and the class token.
constexpr std::int64_t kImageTokens = 257;
// A mid noise level: sigma 0.5, timestep 500 of 1000.
constexpr double kMidSigma = 0.5;
constexpr std::int64_t kMidTimestep = 500;
// The one released Wan with the 48-channel VAE, TI2V-5B, takes per-token timesteps.
constexpr std::int64_t kWan22LatentChannels = 48;

// A Wan 2.1-style transformer small enough for a 2-core CPU: the real head width (so the
// rotary split is the released one), UMT5-XXL's text width and 4 blocks.
WanArchitecture bench_cpu_architecture() {
    WanArchitecture a = find_wan_architecture("wan2.1-t2v-1.3b");
    a.info.name = kBenchCpu;
    a.info.description = "Wan 2.1-style transformer, 2 heads x 128, 4 layers (wan-bench-cpu)";
    WanTransformer3DConfig& c = a.experts.front();
    c.num_attention_heads = 2;
    c.ffn_dim = 1024;
    c.num_layers = 4;
    return a;
}

// What a transformer alone implies of the pipeline around it: the VAE its channels fit, the
// per-token timesteps of the 48-channel TI2V-5B, the scheduler's shift at its own size.
WanArchitecture architecture_of(const WanTransformer3DConfig& config) {
    const bool wan22 = config.out_channels == kWan22LatentChannels;
    const WanTransformerPreset* known = recognise_wan_transformer(config);
    WanArchitecture a;
    a.info.name = known ? known->name : "custom";
    a.info.pipeline_class =
        config.in_channels == config.out_channels ? "WanPipeline" : "WanImageToVideoPipeline";
    a.experts = {config};
    a.vae = wan22 ? wan22_vae_config() : wan21_vae_config();
    a.expand_timesteps = wan22;
    a.flow_shift = wan22 ? 5.0 : 3.0;
    a.text_width = config.text_dim;
    a.image_width = config.image_dim.value_or(a.image_width);
    return a;
}

// The tensors' shapes by diffusers name, as the loader maps an original / ComfyUI checkpoint.
std::map<std::string, std::vector<std::int64_t>>
mapped_shapes(const core::SafetensorsCheckpoint& checkpoint) {
    std::map<std::string, std::vector<std::int64_t>> shapes;
    for (const core::SafetensorsFile& shard : checkpoint.shards()) {
        for (const core::TensorInfo& tensor : shard.tensors()) {
            if (!is_ignored_key(tensor.name) && !scaled_weight_name(tensor.name)) {
                shapes[diffusers_name(tensor.name)] = tensor.shape;
            }
        }
    }
    return shapes;
}

// The config an original checkpoint's tensors imply; nullopt when they are not a Wan
// transformer's.
std::optional<WanTransformer3DConfig> inferred_config(const fs::path& weights,
                                                      std::optional<std::int64_t> heads) {
    const core::SafetensorsCheckpoint checkpoint(weights);
    const auto shapes = mapped_shapes(checkpoint);
    std::vector<std::string> names;
    for (const auto& [name, shape] : shapes) {
        names.push_back(name);
    }
    if (!looks_like_wan_transformer(names)) {
        return std::nullopt;
    }
    return infer_transformer_config(shapes, heads, checkpoint.source().string());
}

std::optional<WanTransformer3DConfig> transformer_config_at(const fs::path& path) {
    if (!fs::is_directory(path)) {
        if (path.extension() != ".safetensors" || !fs::is_regular_file(path)) {
            return std::nullopt;
        }
        return inferred_config(path, std::nullopt);
    }
    const fs::path file = path / "config.json";
    if (!fs::is_regular_file(file)) {
        return std::nullopt;
    }
    const nlohmann::json json = core::read_json_file(file);
    const auto found = json.is_object() ? json.find("_class_name") : json.end();
    const std::string name =
        found != json.end() && found->is_string() ? found->get<std::string>() : "";
    if (name == "WanTransformer3DModel") {
        return WanTransformer3DConfig::from_json(json, file.string());
    }
    if (name == "WanModel") {
        // Wan-AI's own release: original names, and the heads in its config.
        return inferred_config(
            path, core::JsonFields(json, file.string()).maybe<std::int64_t>("num_heads"));
    }
    return std::nullopt;
}

} // namespace

WanBenchModel::WanBenchModel(WanArchitecture architecture)
    : architecture_(std::move(architecture)) {}

WanPipelineFolder WanBenchModel::pipeline(bool all_experts) const {
    WanPipelineFolder folder;
    folder.pipeline_class = architecture_.info.pipeline_class;
    const std::size_t experts = all_experts ? architecture_.experts.size() : 1;
    for (std::size_t i = 0; i < experts; ++i) {
        folder.transformers.push_back(i == 0 ? "transformer" : "transformer_2");
        folder.transformer_configs.push_back(architecture_.experts[i]);
    }
    folder.vae_config = architecture_.vae;
    if (experts > 1) {
        folder.boundary_ratio = architecture_.boundary_ratio;
    }
    folder.expand_timesteps = architecture_.expand_timesteps;
    folder.text_encoder_width = config().text_dim;
    return folder;
}

std::string WanBenchModel::description() const {
    if (!architecture_.info.description.empty()) {
        return architecture_.info.description;
    }
    return WanModelFolder(pipeline(true)).description();
}

nlohmann::json WanBenchModel::summary() const {
    nlohmann::json summary = WanModelFolder(pipeline(true)).summary();
    summary["name"] = architecture();
    summary["description"] = description();
    return summary;
}

std::vector<std::string> WanBenchModel::tasks() const {
    return WanModelFolder(pipeline(false)).tasks();
}

void WanBenchModel::set_num_blocks(std::int64_t blocks) {
    for (WanTransformer3DConfig& expert : architecture_.experts) {
        expert.num_layers = blocks;
    }
}

std::int64_t WanBenchModel::text_length() const {
    return kMaxSequenceLength;
}

VideoShape WanBenchModel::sample_shape() const {
    return pipeline(false).sample_shape();
}

std::optional<VideoShapeProblem> WanBenchModel::video_shape_problem(std::int64_t frames,
                                                                    std::int64_t height,
                                                                    std::int64_t width) const {
    return WanModelFolder(pipeline(false)).video_shape_problem(frames, height, width, false);
}

std::vector<std::string> WanBenchModel::lora_targets() const {
    return WanModelFolder(pipeline(false)).default_lora_targets();
}

std::int64_t WanBenchModel::image_tokens() const {
    return config().has_image_attention() ? kImageTokens : 0;
}

std::unique_ptr<TransformerMemory> WanBenchModel::memory(std::int64_t text_tokens) const {
    return std::make_unique<WanTransformerMemory>(
        config(), WanModelFolder(pipeline(false)).geometry(), text_tokens + image_tokens());
}

DiffusionTransformer WanBenchModel::build(c10::ScalarType dtype) const {
    return WanTransformer3DModel(config(), dtype).ptr();
}

BenchTraining WanBenchModel::training(const BenchBatchRequest& request,
                                      const WeightsPlacement& placement) const {
    const std::vector<std::string> offered = tasks();
    const std::string task = request.task.empty() ? offered.front() : request.task;
    if (std::find(offered.begin(), offered.end(), task) == offered.end()) {
        throw core::Error(core::ErrorCode::Usage,
                          description() + " does not train for task '" + task + "'.",
                          "Use --task " + offered.front() + ".");
    }
    const std::int64_t text_tokens = request.text_tokens > 0 ? request.text_tokens : text_length();
    if (config().has_image_attention() && text_tokens != kMaxSequenceLength) {
        throw core::Error(core::ErrorCode::Usage,
                          description() + " tells the image tokens from the text by the text's " +
                              std::to_string(kMaxSequenceLength) + " tokens.",
                          "Bench it with " + std::to_string(kMaxSequenceLength) + " text tokens.");
    }
    common::TrainingJob job;
    job.task = task;
    const WanPipelineFolder folder = pipeline(false);
    BenchTraining training{
        std::make_unique<WanTrainingObjective>(folder, job, placement, architecture_.flow_shift),
        {}};

    const VideoShape& video = request.video;
    const std::int64_t spatial = folder.spatial_scale();
    TrainingExample example;
    example.latent_mean =
        torch::randn({latent_channels(), (video.frames - 1) / folder.temporal_scale() + 1,
                      video.height / spatial, video.width / spatial});
    example.latent_logvar = torch::zeros_like(example.latent_mean); // [C, F, h, w]
    if (task == "i2v") {
        // TI2V replaces the first latent frame; the others condition on the whole clip's
        // length (the first frame followed by zero frames).
        example.image_mean = folder.variant() == WanVariant::TextImageToVideo
                                 ? example.latent_mean.narrow(1, 0, 1).clone()
                                 : torch::randn_like(example.latent_mean);
        example.image_logvar = torch::zeros_like(example.image_mean);
        if (config().image_dim) {
            example.image_embeds = torch::randn({kImageTokens, *config().image_dim});
        }
    }
    const at::Tensor prompt = torch::randn({text_tokens, config().text_dim});
    std::vector<SampleDraw> draws;
    for (std::int64_t i = 0; i < video.batch; ++i) {
        draws.push_back({&example, prompt, static_cast<std::uint64_t>(i), 0});
    }
    TrainingBatch& batch = training.batch = training.objective->make_batch(draws);
    batch.sigmas.fill_(kMidSigma);
    batch.timesteps.fill_(kMidTimestep);
    return training;
}

ForwardFlops WanBenchModel::forward_flops(const TrainingBatch& batch) const {
    const WanTransformer3DConfig& c = config();
    const at::Tensor& latents = batch.latents; // [B, C, F, h, w]
    const auto n = static_cast<double>((latents.size(2) / c.patch_size[0]) *
                                       (latents.size(3) / c.patch_size[1]) *
                                       (latents.size(4) / c.patch_size[2]));
    // The text (and CLIP) tokens only enter cross-attention, as keys and values.
    const auto context = static_cast<double>(batch.prompt_embeds.size(1) + image_tokens());
    const auto d = static_cast<double>(c.inner_dim());
    const auto ffn = static_cast<double>(c.ffn_dim);
    const auto scale = static_cast<double>(latents.size(0) * c.num_layers);
    // Per video token: self-attention's q, k, v, out and cross-attention's q, out (6 d^2) and
    // the feed-forward (2 d ffn); per context token, cross-attention's k and v (2 d^2).
    const double linears = 2 * (n * (6 * d * d + 2 * d * ffn) + context * 2 * d * d);
    // Q K^T and P V over the video tokens, then over the context.
    const double attention = 4 * n * n * d + 4 * n * context * d;
    return {scale * linears, scale * attention};
}

std::vector<BenchShape> wan_bench_shapes() {
    return {
        // latents [1, 16, 5, 16, 24]: 480 video tokens
        {"wan-bench-cpu", kBenchCpu, {17, 128, 192, 1}, kMaxSequenceLength, "cpu", "fp32"},
        {"wan2.1-1.3b-81x480x832",
         "wan2.1-t2v-1.3b",
         {81, 480, 832, 1},
         kMaxSequenceLength,
         "auto",
         "bf16"},
        {"wan2.1-14b-81x480x832",
         "wan2.1-t2v-14b",
         {81, 480, 832, 1},
         kMaxSequenceLength,
         "auto",
         "bf16"},
        {"wan2.2-5b-121x704x1280",
         "wan2.2-ti2v-5b",
         {121, 704, 1280, 1},
         kMaxSequenceLength,
         "auto",
         "bf16"},
    };
}

std::unique_ptr<BenchModel> wan_bench_model(const std::string& name) {
    if (name == kBenchCpu) {
        return std::make_unique<WanBenchModel>(bench_cpu_architecture());
    }
    for (WanArchitecture& architecture : wan_architectures()) {
        if (architecture.info.name == name) {
            return std::make_unique<WanBenchModel>(std::move(architecture));
        }
    }
    return nullptr;
}

std::unique_ptr<BenchModel> describe_wan_transformer(const fs::path& path) {
    const std::optional<WanTransformer3DConfig> config = transformer_config_at(path);
    if (!config) {
        return nullptr;
    }
    return std::make_unique<WanBenchModel>(architecture_of(*config));
}

} // namespace tuneframe::models::wan
