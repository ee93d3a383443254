// The batch a step trains on: drawn from keys, not from a running generator, so every stage,
// rank and resumed run that asks for the same samples at the same draw gets the same numbers.
#include "engine/core/error.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/models/cogvideox/cogvideox_training_objective.h"
#include "engine/train/sampling/training_batch_maker.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::train {
namespace {

class TrainingBatchMakerTest : public ::testing::Test {
protected:
    TrainingBatchMakerTest()
        : pipeline_(diffusion::PipelineFolder::open(test::tiny_pipeline()))
        , job_(test_support::small_job(1, 1e-3)) {}

    // CogVideoX's objective for the job as the test left it.
    TrainingBatchMaker maker(at::Tensor empty_prompt = {}) {
        objective_ = std::make_unique<models::cogvideox::CogVideoXTrainingObjective>(
            pipeline_, job_, models::WeightsPlacement{c10::kFloat, c10::Device(c10::kCPU)});
        return TrainingBatchMaker(dataset_, *objective_, job_, std::move(empty_prompt));
    }

    test_support::MemoryDataset dataset_;
    diffusion::PipelineFolder pipeline_;
    common::TrainingJob job_;
    std::unique_ptr<models::cogvideox::CogVideoXTrainingObjective> objective_;
};

TEST_F(TrainingBatchMakerTest, ASampleDrawsTheSameWhateverBatchItIsIn) {
    const TrainingBatchMaker batches = maker();
    const models::TrainingBatch pair = batches.make({0, 1}, 5);
    const models::TrainingBatch alone = batches.make({1}, 5);
    ASSERT_EQ(pair.latents.sizes(), (std::vector<std::int64_t>{2, 2, 16, 4, 6}));
    EXPECT_TRUE(pair.latents[1].equal(alone.latents[0]));
    EXPECT_TRUE(pair.noise[1].equal(alone.noise[0]));
    EXPECT_TRUE(pair.timesteps[1].equal(alone.timesteps[0]));
    EXPECT_TRUE(batches.make({0, 1}, 5).noise.equal(pair.noise));
    // The next draw samples the posterior and the noise anew.
    const models::TrainingBatch next = batches.make({0, 1}, 6);
    EXPECT_FALSE(next.noise.equal(pair.noise));
    EXPECT_FALSE(next.latents.equal(pair.latents));
}

TEST_F(TrainingBatchMakerTest, LatentsAreThePosteriorSampleScaledFramesFirst) {
    const models::TrainingBatch batch = maker().make({2}, 0);
    const TrainingExample example = dataset_.load(2);
    const double scale = pipeline_.vae_config.scaling_factor;
    const at::Tensor mean = example.latent_mean.permute({1, 0, 2, 3}).unsqueeze(0) * scale;
    ASSERT_EQ(batch.latents.sizes(), mean.sizes());
    // logvar -6: the posterior's standard deviation is exp(-3) = 0.05 of the unscaled latent.
    const double spread = (batch.latents - mean).std().item<double>() / scale;
    EXPECT_GT(spread, 0.03);
    EXPECT_LT(spread, 0.07);
    EXPECT_TRUE(batch.prompt_embeds[0].equal(example.prompt_embeds));
    EXPECT_GE(batch.timesteps.min().item<std::int64_t>(), 0);
    EXPECT_LT(batch.timesteps.max().item<std::int64_t>(),
              pipeline_.scheduler_config.num_train_timesteps);
}

TEST_F(TrainingBatchMakerTest, DroppedCaptionsBecomeTheEmptyPrompt) {
    job_.dataset.caption_dropout = 1.0;
    const at::Tensor empty = torch::full({64, 32}, 0.25);
    const models::TrainingBatch batch = maker(empty).make({2, 3}, 2);
    EXPECT_TRUE(batch.prompt_embeds[0].equal(empty));
    EXPECT_TRUE(batch.prompt_embeds[1].equal(empty));
}

TEST_F(TrainingBatchMakerTest, TokensCountPatchesAndPromptPerSample) {
    const TrainingBatchMaker batches = maker();
    // 2 latent frames of 4 x 6 in 2 x 2 patches: 12 video tokens, then 64 prompt tokens.
    EXPECT_EQ(batches.tokens(batches.make({0, 1}, 0)), 2 * (12 + 64));
    // 4 x 4 latents: 2 x 2 x 2 video tokens.
    EXPECT_EQ(batches.tokens(batches.make({3}, 0)), 8 + 64);
}

TEST_F(TrainingBatchMakerTest, ImageToVideoNeedsFirstFrameLatents) {
    job_.task = "i2v";
    try {
        maker().make({0}, 0);
        FAIL() << "a sample without first-frame latents trained image-to-video";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("first-frame latents"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::train
