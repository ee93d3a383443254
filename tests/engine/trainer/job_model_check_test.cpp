// The job against its model (engine/train/job_model_check): each refusal names the job field the
// studio shows it beside, and a job the model can train passes. The tiny pipelines on disk, and
// CogVideoX 1.5's configs for its temporal patches.
#include "engine/core/error.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_model_folder.h"
#include "engine/models/model_family.h"
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

// memory.blocks_to_swap against the model: its depth (the tiny pipeline's 2 blocks), a pipeline
// stage's, and what a swapped full fine-tune needs (an optimizer that updates on the host, one
// process); a full fine-tune of both experts of Wan 2.2 A14B in one process.
TEST(JobModelCheck, BlockSwapFitsTheModelItsStageAndItsOptimizer) {
    const auto tiny = diffusion::PipelineFolder::open(test::tiny_pipeline());
    common::TrainingJob job = small_lora_job();
    job.memory.blocks_to_swap = 2;
    EXPECT_EQ(refusal(job, tiny).field, "");

    job.memory.blocks_to_swap = 3;
    const Refusal deep = refusal(job, tiny);
    EXPECT_EQ(deep.field, "memory.blocks_to_swap");
    EXPECT_NE(deep.message.find("has 2 transformer blocks"), std::string::npos) << deep.message;
    EXPECT_NE(deep.hint.find("at most 2"), std::string::npos) << deep.hint;

    // 30 blocks over 4 stages: the first two run 7 each.
    auto v1_5 = v1_5_model();
    v1_5.transformer_config.num_layers = 30;
    job.parallel.plan = "hybrid";
    job.parallel.pp_size = 4;
    job.memory.blocks_to_swap = 7;
    EXPECT_EQ(refusal(job, v1_5).field, "");
    job.memory.blocks_to_swap = 8;
    const Refusal staged = refusal(job, v1_5);
    EXPECT_EQ(staged.field, "memory.blocks_to_swap");
    EXPECT_NE(staged.message.find("runs 7 of its 30 blocks"), std::string::npos) << staged.message;

    common::TrainingJob full = small_lora_job();
    full.mode = "full";
    full.memory.blocks_to_swap = 1;
    const Refusal optimizer = refusal(full, tiny);
    EXPECT_EQ(optimizer.field, "optimizer.name");
    EXPECT_NE(optimizer.hint.find("adamw-cpu-offload"), std::string::npos) << optimizer.hint;
    full.optimizer.name = "adamw-cpu-offload";
    EXPECT_EQ(refusal(full, tiny).field, "");
    full.parallel.plan = "zero2";
    const Refusal sharded = refusal(full, tiny);
    EXPECT_EQ(sharded.field, "memory.blocks_to_swap");
    EXPECT_NE(sharded.message.find("one process"), std::string::npos) << sharded.message;
}

// Activation offload moves what recomputed blocks keep: with nothing recomputed it would do
// nothing, and says so.
TEST(JobModelCheck, ActivationOffloadNeedsBlocksThatRecompute) {
    const auto tiny = diffusion::PipelineFolder::open(test::tiny_pipeline());
    common::TrainingJob job = small_lora_job();
    job.memory.offload_activations = true;
    job.gradient_checkpointing = true;
    EXPECT_EQ(refusal(job, tiny).field, "");
    job.gradient_checkpointing = false;
    const Refusal idle = refusal(job, tiny);
    EXPECT_EQ(idle.field, "memory.offload_activations");
    EXPECT_NE(idle.hint.find("gradient_checkpointing on"), std::string::npos) << idle.hint;
    // Swapped blocks always recompute.
    job.memory.blocks_to_swap = 1;
    EXPECT_EQ(refusal(job, tiny).field, "");
}

TEST(JobModelCheck, AFullFineTuneTrainsOneExpertPerProcess) {
    const auto a14b = models::open_model_folder(test::tiny_wan_pipeline("wan2.2-tiny-a14b"));
    common::TrainingJob job = small_lora_job();
    job.mode = "full";
    job.validation.sampler = "";
    try {
        check_job_against_model(job, *a14b, "job.json");
        FAIL() << "expected a refusal";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.field(), "flow_matching.expert");
        EXPECT_NE(error.hint().find("one expert per run"), std::string::npos) << error.hint();
    }
    job.flow_matching.expert = "low_noise";
    EXPECT_NO_THROW(check_job_against_model(job, *a14b, "job.json"));
    job.mode = "lora";
    job.flow_matching.expert = "both";
    EXPECT_NO_THROW(check_job_against_model(job, *a14b, "job.json"));
}

} // namespace
} // namespace tuneframe::train
