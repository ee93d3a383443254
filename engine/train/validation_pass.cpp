#include "engine/train/validation_pass.h"

#include "engine/core/json_file.h"
#include "engine/core/video_tensors.h"

#include <chrono>

namespace tuneframe::train {
namespace {

constexpr const char* kIndexFile = "validation.json";

void write_index(const std::filesystem::path& folder, const std::vector<ValidationVideo>& videos,
                 const std::vector<std::string>& prompts) {
    nlohmann::json entries = nlohmann::json::array();
    for (const ValidationVideo& video : videos) {
        entries.push_back({{"prompt_index", video.prompt_index},
                           {"prompt", prompts[video.prompt_index]},
                           {"video", video.file.filename().string()},
                           {"seconds", video.seconds}});
    }
    core::write_json_file(folder / kIndexFile, {{"v", 1}, {"videos", entries}});
}

} // namespace

ValidationPass::ValidationPass(const models::ModelFolder& model, const common::TrainingJob& job,
                               models::WeightsPlacement placement)
    : model_(model)
    , job_(job)
    , placement_(placement) {}

std::vector<models::SampleResult>
ValidationPass::sample(const std::vector<models::DiffusionTransformer>& transformers,
                       const StageBoundary& stage_boundary, double* seconds) const {
    models::SamplerOptions options;
    options.placement = placement_;
    options.vae_tiling = job_.dataset.vae_tiling;
    options.vae_slicing = job_.dataset.vae_slicing;
    // On a GPU the transformer waits on the host while the text encoder and the VAE work.
    options.offload_idle = placement_.device.is_cuda();
    const std::unique_ptr<models::VideoSampler> sampler = model_.sampler(options);
    sampler->use_transformers(transformers);
    std::vector<models::SampleRequest> requests;
    for (std::size_t i = 0; i < job_.validation.prompts.size(); ++i) {
        requests.push_back(request(i));
    }
    for (const models::DiffusionTransformer& transformer : transformers) {
        transformer->eval();
    }
    const auto started = std::chrono::steady_clock::now();
    std::vector<models::SampleResult> results = sampler->generate_all(
        requests, {},
        [&](const char* stage, const std::vector<std::string>&) { stage_boundary(stage); });
    for (const models::DiffusionTransformer& transformer : transformers) {
        transformer->train();
    }
    if (seconds != nullptr) {
        *seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    return results;
}

std::vector<ValidationVideo>
ValidationPass::run(const std::vector<models::DiffusionTransformer>& transformers,
                    const std::filesystem::path& folder,
                    const StageBoundary& stage_boundary) const {
    std::filesystem::create_directories(folder);
    // A pass again at the same step (a `validate` command) is incomplete until it ends too.
    std::error_code ignored;
    std::filesystem::remove(folder / kIndexFile, ignored);

    double total_seconds = 0;
    const std::vector<models::SampleResult> results =
        sample(transformers, stage_boundary, &total_seconds);
    const double seconds = total_seconds / static_cast<double>(results.size());

    std::vector<ValidationVideo> videos;
    for (std::size_t i = 0; i < results.size(); ++i) {
        ValidationVideo video{i, folder / (std::to_string(i) + ".mp4"), seconds};
        core::write_video_file(results[i].video[0], video.file, model_.default_fps());
        videos.push_back(std::move(video));
    }
    write_index(folder, videos, job_.validation.prompts);
    return videos;
}

bool ValidationPass::is_complete(const std::filesystem::path& folder) {
    return std::filesystem::is_regular_file(folder / kIndexFile);
}

models::SampleRequest ValidationPass::request(std::size_t prompt_index) const {
    const common::ValidationSettings& v = job_.validation;
    const models::SamplingDefaults defaults = model_.sampling_defaults();
    models::SampleRequest request;
    request.prompt = v.prompts[prompt_index];
    request.frames = v.frames;
    request.height = v.height;
    request.width = v.width;
    request.steps = static_cast<int>(v.steps);
    request.guidance = v.guidance;
    request.guidance_2 = v.guidance_2;
    request.dynamic_cfg = v.dynamic_cfg;
    request.sampler = v.sampler.empty() ? defaults.sampler : v.sampler;
    request.negative_prompt = defaults.negative_prompt;
    request.seed = v.seed;
    if (job_.task == "i2v") {
        const models::VideoShape own = model_.sample_shape();
        request.image = defaults.image_at_own_size
                            ? core::read_image_file(v.images[prompt_index])
                            : core::read_image_file(v.images[prompt_index],
                                                    v.height > 0 ? v.height : own.height,
                                                    v.width > 0 ? v.width : own.width);
    }
    return request;
}

} // namespace tuneframe::train
