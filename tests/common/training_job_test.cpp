#include "common/training_job.h"

#include <gtest/gtest.h>

namespace tuneframe::common {
namespace {

using nlohmann::json;

// The error a job gives, or "" when it reads.
std::string error_of(const json& job, std::string* field = nullptr) {
    try {
        TrainingJob::from_json(job, "job.json");
        return "";
    } catch (const JobError& error) {
        if (field) {
            *field = error.field();
        }
        EXPECT_FALSE(error.hint().empty()) << error.what();
        return error.what();
    }
}

TEST(TrainingJob, AnEmptyObjectIsTheDefaultJob) {
    const TrainingJob job = TrainingJob::from_json(json::object(), "preset");
    EXPECT_EQ(job.mode, "lora");
    EXPECT_EQ(job.lora.rank, 64);
    EXPECT_EQ(job.optimizer.name, "adamw");
    EXPECT_EQ(job.dataset.frame_buckets, (std::vector<std::int64_t>{49}));
    EXPECT_EQ(job.max_steps, 1000);
    // A manifest's files stay inside its folder unless the job says otherwise.
    EXPECT_FALSE(job.dataset.allow_paths_outside);
}

TEST(TrainingJob, WritingAndReadingGivesTheSameJob) {
    json edits = {{"mode", "full"},
                  {"optimizer", {{"name", "came"}, {"lr", 2e-4}, {"beta3", 0.9999}}},
                  {"dataset",
                   {{"resolution_buckets", {{480, 720}, {720, 480}}},
                    {"frame_buckets", {9, 49}},
                    {"allow_paths_outside", true}}},
                  {"validation", {{"every_steps", 50}, {"prompts", {"a red ball"}}}},
                  {"parallel", {{"plan", "hybrid"}, {"sp_size", 2}, {"zero_stage", 2}}},
                  {"device", "cuda:1"},
                  {"checkpointed_blocks", 12},
                  {"checkpoint_keeps_attention", true},
                  {"seed", 7}};
    const TrainingJob job = TrainingJob::from_json(edits, "job.json");
    const json written = job.to_json();
    EXPECT_EQ(TrainingJob::from_json(written, "again").to_json(), written);
    EXPECT_EQ(job.dataset.resolution_buckets.size(), 2u);
    EXPECT_EQ(job.dataset.resolution_buckets[1].first, 720);
    EXPECT_EQ(*job.optimizer.beta3, 0.9999);
    EXPECT_EQ(job.parallel.sp_size, 2);
    EXPECT_EQ(job.parallel.zero_stage, 2);
    const TrainingJob split =
        TrainingJob::from_json({{"parallel", {{"plan", "hybrid"}, {"tp_size", 4}}}}, "job.json");
    EXPECT_EQ(TrainingJob::from_json(split.to_json(), "again").parallel.tp_size, 4);
    EXPECT_TRUE(TrainingJob::from_json(written, "again").dataset.allow_paths_outside);
    EXPECT_EQ(job.checkpointed_blocks, 12);
    EXPECT_TRUE(job.checkpoint_keeps_attention);
    // Unset means every block, and stays unset through a write and a read.
    const TrainingJob defaults = TrainingJob::from_json(json::object(), "job.json");
    EXPECT_FALSE(defaults.checkpointed_blocks.has_value());
    EXPECT_TRUE(defaults.to_json()["checkpointed_blocks"].is_null());
    EXPECT_FALSE(
        TrainingJob::from_json(defaults.to_json(), "again").checkpointed_blocks.has_value());
}

TEST(TrainingJob, AMisspeltFieldIsNamedWithItsPath) {
    std::string field;
    const std::string message = error_of({{"optimizer", {{"learning_rate", 1e-4}}}}, &field);
    EXPECT_EQ(field, "optimizer.learning_rate");
    EXPECT_NE(message.find("job.json"), std::string::npos) << message;
}

TEST(TrainingJob, BadValuesSayWhatIsAllowed) {
    std::string field;
    EXPECT_NE(error_of({{"optimizer", {{"name", "sgd"}}}}, &field).find("adamw8bit"),
              std::string::npos);
    EXPECT_EQ(field, "optimizer.name");
    EXPECT_NE(error_of({{"dataset", {{"frame_buckets", {48}}}}}, &field).find("4k+1"),
              std::string::npos);
    EXPECT_NE(error_of({{"dataset", {{"resolution_buckets", {{480, 700}}}}}}, &field)
                  .find("multiple of 16"),
              std::string::npos);
    // Far beyond any CogVideoX size: refused before prepare asks for terabytes.
    EXPECT_NE(error_of({{"dataset", {{"resolution_buckets", {{1000000, 1000000}}}}}}, &field)
                  .find("beyond 4096 pixels a side"),
              std::string::npos);
    EXPECT_EQ(field, "dataset.resolution_buckets");
    EXPECT_TRUE(error_of({{"dataset", {{"resolution_buckets", {{4096, 4096}}}}}}).empty());
    EXPECT_NE(error_of({{"dataset", {{"frame_buckets", {1029}}}}}).find("more than 1025"),
              std::string::npos);
    EXPECT_TRUE(error_of({{"dataset", {{"frame_buckets", {1025}}}}}).empty());
    EXPECT_NE(error_of({{"lora", {{"rank", 0}}}}, &field).find("less than 1"), std::string::npos);
    EXPECT_EQ(field, "lora.rank");
    EXPECT_NE(error_of({{"lora", {{"base_quantization", "int4"}}}}, &field).find("int8"),
              std::string::npos);
    EXPECT_EQ(field, "lora.base_quantization");
    EXPECT_NE(error_of({{"mode", "full"}, {"lora", {{"base_quantization", "int8"}}}}, &field)
                  .find("mode is \"full\""),
              std::string::npos);
    EXPECT_EQ(field, "lora.base_quantization");
    EXPECT_NE(error_of({{"checkpointed_blocks", 0}}, &field).find("less than 1"),
              std::string::npos);
    EXPECT_EQ(field, "checkpointed_blocks");
    EXPECT_FALSE(error_of({{"checkpointed_blocks", 2.5}}).empty());
    EXPECT_FALSE(error_of({{"checkpoint_keeps_attention", "yes"}}).empty());
    EXPECT_FALSE(error_of({{"optimizer", {{"lr", "1e-4"}}}}).empty());
    EXPECT_FALSE(error_of({{"batch_size", 1.5}}).empty());
    EXPECT_FALSE(error_of({{"optimizer", {{"name", "came"}}}}).empty()); // beta3 missing
    EXPECT_FALSE(error_of({{"max_steps", 0}, {"epochs", 0}}).empty());
    EXPECT_FALSE(error_of({{"device", "gpu"}}).empty());
    EXPECT_FALSE(error_of({{"parallel", {{"sp_size", 2}}}}).empty());
    EXPECT_FALSE(error_of({{"parallel", {{"tp_size", 2}}}}).empty());
    EXPECT_FALSE(error_of({{"parallel", {{"zero_stage", 1}}}}).empty());
    EXPECT_FALSE(error_of({{"parallel", {{"plan", "hybrid"}, {"zero_stage", 3}}}}).empty());
    // Tensor parallelism splits optimizer state with the layers; 8-bit blocks cannot be.
    EXPECT_FALSE(error_of({{"optimizer", {{"name", "adamw8bit"}}},
                           {"parallel", {{"plan", "hybrid"}, {"tp_size", 2}}}},
                          &field)
                     .empty());
    EXPECT_EQ(field, "optimizer.name");
    EXPECT_FALSE(error_of({{"validation", {{"every_steps", 10}}}}).empty()); // no prompts
    EXPECT_FALSE(error_of({{"task", "i2v"}, {"validation", {{"prompts", {"a"}}}}}).empty());
    EXPECT_FALSE(error_of({{"v", 2}}).empty());
    EXPECT_FALSE(error_of(json::array()).empty());
}

TEST(TrainingJob, PresetsMergeObjectByObject) {
    const json preset = {{"lora", {{"rank", 128}, {"alpha", 128}}},
                         {"optimizer", {{"name", "adamw"}, {"lr", 1e-4}}}};
    const json edits = {{"lora", {{"rank", 32}}}, {"dataset", {{"frame_buckets", {9}}}}};
    const json merged = merge_job_json(preset, edits);
    const TrainingJob job = TrainingJob::from_json(merged, "merged");
    EXPECT_EQ(job.lora.rank, 32);
    EXPECT_EQ(job.lora.alpha, 128);
    EXPECT_EQ(job.optimizer.lr, 1e-4);
    EXPECT_EQ(job.dataset.frame_buckets, (std::vector<std::int64_t>{9}));
}

} // namespace
} // namespace tuneframe::common
