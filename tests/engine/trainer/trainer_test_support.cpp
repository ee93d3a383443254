#include "tests/engine/trainer/trainer_test_support.h"

#include "tests/support/test_paths.h"

#include "engine/core/event_emitter.h"
#include "engine/diffusion/cogvideox_noise_schedule.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/cogvideox/diffusion_loss.h"

#include <torch/torch.h>

#include <fcntl.h>
#include <fstream>
#include <unistd.h>

namespace tuneframe::train::test_support {

MemoryDataset::MemoryDataset() {
    torch::manual_seed(11);
    for (int i = 0; i < 4; ++i) {
        const std::int64_t width = i < 2 ? 6 : 4;
        TrainingExample example;
        example.latent_mean = torch::randn({16, 2, 4, width}) * 0.5;
        example.latent_logvar = torch::full({16, 2, 4, width}, -6.0);
        example.prompt_embeds = torch::randn({64, 32});
        examples_.push_back(example);
    }
}

TrainingExample MemoryDataset::load(std::int64_t index) const {
    return examples_[static_cast<std::size_t>(index)];
}

common::TrainingJob small_job(std::int64_t steps, double lr) {
    nlohmann::json json = {{"model", test::tiny_pipeline().string()},
                           {"precision", "fp32"},
                           {"device", "cpu"},
                           {"max_steps", steps},
                           {"batch_size", 2},
                           {"gradient_checkpointing", false},
                           {"lora", {{"rank", 4}, {"alpha", 4}}},
                           {"optimizer", {{"lr", lr}}},
                           {"checkpoints", {{"every_steps", 2}, {"keep", 2}}},
                           {"seed", 5}};
    return common::TrainingJob::from_json(json, "test job");
}

TrainResult run_trainer(const common::TrainingJob& job, const std::filesystem::path& run,
                        CommandChannel* commands, dist::DistributedContext* context) {
    std::filesystem::create_directories(run);
    const int fd = ::open((run / "events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    core::EventEmitter events(fd);
    Trainer trainer(job, test::tiny_pipeline(), run, std::make_unique<MemoryDataset>(), events,
                    commands, context);
    try {
        TrainResult result = trainer.run();
        ::close(fd);
        return result;
    } catch (...) {
        ::close(fd);
        throw;
    }
}

std::vector<nlohmann::json> read_events(const std::filesystem::path& file) {
    std::vector<nlohmann::json> events;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        events.push_back(nlohmann::json::parse(line));
    }
    return events;
}

double fixed_batch_loss(models::cogvideox::CogVideoXTransformer3DModel& transformer) {
    const auto pipeline = diffusion::PipelineFolder::open(test::tiny_pipeline());
    const diffusion::CogVideoXNoiseSchedule schedule(pipeline.scheduler_config);
    const TrainingExample example = MemoryDataset().load(0);
    models::cogvideox::DiffusionBatch batch;
    batch.latents = (example.latent_mean * pipeline.vae_config.scaling_factor)
                        .permute({1, 0, 2, 3})
                        .unsqueeze(0)
                        .repeat({4, 1, 1, 1, 1});
    batch.prompt_embeds = example.prompt_embeds.unsqueeze(0).repeat({4, 1, 1});
    torch::manual_seed(3);
    batch.noise = torch::randn(batch.latents.sizes());
    batch.timesteps = torch::tensor({100, 400, 700, 950}, torch::kLong);
    torch::NoGradGuard no_grad;
    return models::cogvideox::diffusion_loss(transformer, schedule, batch).loss.item<double>();
}

} // namespace tuneframe::train::test_support
