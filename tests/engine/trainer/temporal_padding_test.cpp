// CogVideoX 1.5 packs latent frames in pairs. Clips whose latent count is odd (81 frames: 21,
// the model's own length) train with their first latent frame repeated in front, as THUDM's
// CogVideo fine-tuning does; before, the job check refused such buckets.
#include "engine/core/event_emitter.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/cogvideox/diffusion_loss.h"
#include "engine/models/cogvideox/init_model.h"
#include "engine/train/job_model_check.h"
#include "engine/train/trainer.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fcntl.h>
#include <unistd.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;
using models::cogvideox::pad_to_temporal_patches;

TEST(TemporalPadding, RepeatsTheFirstLatentFrameInFrontUntilThePatchesFit) {
    const at::Tensor latents = torch::randn({2, 3, 4, 2, 2}); // [B, F, C, h, w]
    const at::Tensor padded = pad_to_temporal_patches(latents, 2);
    ASSERT_EQ(padded.sizes(), (std::vector<std::int64_t>{2, 4, 4, 2, 2}));
    EXPECT_TRUE(padded.select(1, 0).equal(latents.select(1, 0)));
    EXPECT_TRUE(padded.narrow(1, 1, 3).equal(latents));
    EXPECT_EQ(pad_to_temporal_patches(latents, 3).size(1), 3);
    EXPECT_EQ(pad_to_temporal_patches(latents, 4).size(1), 4);
    EXPECT_EQ(pad_to_temporal_patches(latents, 1).size(1), 3);
    EXPECT_EQ(pad_to_temporal_patches(padded, 2).size(1), 4);
}

// Three clips of 3 latent frames (9 video frames), as prepare caches them.
class OddFrameDataset : public TrainingDataset {
public:
    OddFrameDataset() {
        torch::manual_seed(3);
        for (int i = 0; i < 3; ++i) {
            TrainingExample example;
            example.latent_mean = torch::randn({16, 3, 4, 6}) * 0.5;
            example.latent_logvar = torch::full({16, 3, 4, 6}, -6.0);
            example.prompt_embeds = torch::randn({64, 32});
            examples_.push_back(example);
        }
    }
    std::int64_t size() const override { return static_cast<std::int64_t>(examples_.size()); }
    std::string bucket(std::int64_t) const override { return "9x32x48"; }
    TrainingExample load(std::int64_t index) const override {
        return examples_[static_cast<std::size_t>(index)];
    }
    std::string fingerprint() const override { return "odd-3"; }

private:
    std::vector<TrainingExample> examples_;
};

// The tiny pipeline with a CogVideoX 1.5 transformer of the tiny widths (temporal patches of 2).
fs::path write_tiny_v1_5_pipeline(const fs::path& root) {
    fs::copy(test::tiny_pipeline(), root, fs::copy_options::recursive);
    models::cogvideox::CogVideoXTransformer3DConfig config =
        models::cogvideox::find_architecture("cogvideox1.5-5b").transformer;
    const auto tiny = models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    config.num_layers = tiny.num_layers;
    config.num_attention_heads = tiny.num_attention_heads;
    config.attention_head_dim = tiny.attention_head_dim;
    config.text_embed_dim = tiny.text_embed_dim;
    config.time_embed_dim = tiny.time_embed_dim;
    config.max_text_seq_length = tiny.max_text_seq_length;
    fs::remove_all(root / "transformer");
    models::cogvideox::write_random_transformer(config, root / "transformer", torch::kFloat32, 7,
                                                5'000'000'000);
    return root;
}

TEST(TemporalPadding, CogVideoX15TrainsOnAnOddLatentFrameCount) {
    test::TemporaryDirectory directory;
    const fs::path model = write_tiny_v1_5_pipeline(directory / "tiny-1.5");
    nlohmann::json json = {{"model", model.string()},
                           {"precision", "fp32"},
                           {"device", "cpu"},
                           {"max_steps", 3},
                           {"batch_size", 1},
                           {"gradient_checkpointing", false},
                           {"dataset", {{"frame_buckets", {9}}}},
                           {"lora", {{"rank", 4}, {"alpha", 4}}},
                           {"checkpoints", {{"every_steps", 3}, {"keep", 1}}},
                           {"seed", 5}};
    const common::TrainingJob job = common::TrainingJob::from_json(json, "job.json");
    // 9 frames give 3 latent frames: no longer refused.
    EXPECT_NO_THROW(check_job_against_model(
        job, models::cogvideox::CogVideoXModelFolder(diffusion::PipelineFolder::open(model)),
        "job.json"));

    const fs::path run = directory / "run";
    fs::create_directories(run);
    const int fd = ::open((run / "events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ASSERT_GE(fd, 0);
    core::EventEmitter events(fd);
    Trainer trainer(job, model, run, std::make_unique<OddFrameDataset>(), events);
    TrainResult result;
    EXPECT_NO_THROW(result = trainer.run());
    ::close(fd);
    EXPECT_EQ(result.status, "finished");
    EXPECT_EQ(result.steps, 3);
    EXPECT_TRUE(std::isfinite(result.last_loss));
    EXPECT_GT(result.last_loss, 0.0);
}

} // namespace
} // namespace tuneframe::train
