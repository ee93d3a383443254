// The job against its model (engine/train/job_model_check): each refusal names the job field the
// studio shows it beside, and a job the model can train passes. The tiny pipelines on disk, and
// CogVideoX 1.5's configs for its temporal patches.
#include "engine/core/error.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/train/job_model_check.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <string>

namespace tuneframe::train {
namespace {

// The field of the error the check throws, with its message and hint; "" when it passes.
struct Refusal {
    std::string field, message, hint;
};

Refusal refusal(const common::TrainingJob& job, const diffusion::PipelineFolder& model) {
    try {
        check_job_against_model(job, models::cogvideox::CogVideoXModelFolder(model), "job.json");
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("job.json"), std::string::npos) << error.what();
        return {error.field(), error.what(), error.hint()};
    }
    return {};
}

common::TrainingJob small_lora_job(const std::string& task = "t2v") {
    common::TrainingJob job;
    job.task = task;
    job.lora.rank = 4;
    job.dataset.frame_buckets = {9};
    return job;
}

// CogVideoX1.5-5B's transformer with the tiny pipeline's VAE (4x temporal, 8x spatial).
diffusion::PipelineFolder v1_5_model() {
    diffusion::PipelineFolder model = diffusion::PipelineFolder::open(test::tiny_pipeline());
    model.transformer_config = models::cogvideox::find_architecture("cogvideox1.5-5b").transformer;
    return model;
}

TEST(JobModelCheck, AJobTheModelCanTrainPasses) {
    const auto t2v = diffusion::PipelineFolder::open(test::tiny_pipeline());
    const auto i2v = diffusion::PipelineFolder::open(test::tiny_i2v_pipeline());
    EXPECT_EQ(refusal(small_lora_job(), t2v).field, "");
    EXPECT_EQ(refusal(small_lora_job("i2v"), i2v).field, "");
}

TEST(JobModelCheck, TheTaskMustMatchTheModelKind) {
    const auto t2v = diffusion::PipelineFolder::open(test::tiny_pipeline());
    const auto i2v = diffusion::PipelineFolder::open(test::tiny_i2v_pipeline());
    const Refusal on_t2v = refusal(small_lora_job("i2v"), t2v);
    EXPECT_EQ(on_t2v.field, "task");
    EXPECT_NE(on_t2v.message.find("text-to-video model"), std::string::npos) << on_t2v.message;
    const Refusal on_i2v = refusal(small_lora_job("t2v"), i2v);
    EXPECT_EQ(on_i2v.field, "task");
    EXPECT_NE(on_i2v.hint.find("i2v"), std::string::npos) << on_i2v.hint;
}

TEST(JobModelCheck, ARankWiderThanATargetedLayerNamesLoraRank) {
    common::TrainingJob job = small_lora_job();
    job.lora.rank = 64; // the tiny layers are 32 wide
    const Refusal wide = refusal(job, diffusion::PipelineFolder::open(test::tiny_pipeline()));
    EXPECT_EQ(wide.field, "lora.rank");
    EXPECT_NE(wide.hint.find("at most 32"), std::string::npos) << wide.hint;
    job.mode = "full"; // no adapter, no rank
    EXPECT_EQ(refusal(job, diffusion::PipelineFolder::open(test::tiny_pipeline())).field, "");
}

// CogVideoX 1.5 trains odd latent counts with the first frame repeated in front
// (temporal_padding_test.cpp), so every 4k+1 bucket passes, its own 81 frames included.
TEST(JobModelCheck, Cogvideox15TakesEveryFourKPlusOneBucket) {
    common::TrainingJob job = small_lora_job();
    job.dataset.frame_buckets = {85, 81, 53, 9, 5};
    EXPECT_EQ(refusal(job, v1_5_model()).field, "");
    EXPECT_EQ(refusal(job, diffusion::PipelineFolder::open(test::tiny_pipeline())).field, "");
}

TEST(JobModelCheck, ValidationMustAskForWhatTheSamplerMakes) {
    const auto model = diffusion::PipelineFolder::open(test::tiny_pipeline());
    common::TrainingJob job = small_lora_job();
    job.validation.frames = 13;               // 4k+1 trains, but sampling makes 8k+1
    EXPECT_EQ(refusal(job, model).field, ""); // no prompts: no validation
    job.validation.prompts = {"a red ball"};
    EXPECT_EQ(refusal(job, model).field, "validation.frames");
    job.validation.frames = 17;
    job.validation.height = 100;
    EXPECT_EQ(refusal(job, model).field, "validation.height");
    job.validation.height = 0;
    job.validation.width = 72;
    EXPECT_EQ(refusal(job, model).field, "validation.width");
    job.validation.width = 96;
    EXPECT_EQ(refusal(job, model).field, "");
}

} // namespace
} // namespace tuneframe::train
