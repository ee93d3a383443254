// The job's table of limits (issue 39): every field has one, the reader enforces it without
// wrapping a large number, refuses null where it means nothing, and refuses a NUL in any text,
// in the job as in the manifest.
#include "common/dataset_manifest.h"
#include "common/training_job.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace tuneframe::common {
namespace {

using nlohmann::json;

struct Refusal {
    std::string message; // empty when the job reads
    std::string field;
};

Refusal refusal_of(const json& job) {
    try {
        TrainingJob::from_json(job, "job.json");
        return {};
    } catch (const JobError& error) {
        EXPECT_FALSE(error.hint().empty()) << error.what();
        return {error.what(), error.field()};
    }
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The fields of a written job, "optimizer.lr", objects apart.
void collect(const json& value, const std::string& path, std::set<std::string>& leaves,
             std::set<std::string>& objects) {
    if (!value.is_object()) {
        leaves.insert(path);
        return;
    }
    if (!path.empty()) {
        objects.insert(path);
    }
    for (const auto& [key, child] : value.items()) {
        collect(child, path.empty() ? key : path + "." + key, leaves, objects);
    }
}

TEST(JobLimits, TheTableHoldsEveryFieldTheJobWritesAndNoOther) {
    // guidance_2, flow_matching and memory are written only when set.
    const json written = TrainingJob::from_json({{"validation", {{"guidance_2", 3.0}}},
                                                 {"flow_matching", {{"shift", 5.0}}},
                                                 {"memory", {{"blocks_to_swap", 4}}}},
                                                "job.json")
                             .to_json();
    std::set<std::string> leaves;
    std::set<std::string> objects;
    collect(written, "", leaves, objects);
    std::set<std::string> table_leaves;
    std::set<std::string> table_objects;
    for (const JobFieldLimit& limit : job_field_limits()) {
        (limit.type == JobFieldType::Object ? table_objects : table_leaves).insert(limit.field);
    }
    EXPECT_EQ(table_leaves, leaves);
    EXPECT_EQ(table_objects, objects);
    // And every default reads back within its own limits.
    EXPECT_EQ(TrainingJob::from_json(written, "again").to_json(), written);
    EXPECT_EQ(find_job_field_limit("optimizer.learning_rate"), nullptr);
    EXPECT_THROW(job_field_limit("optimizer.learning_rate"), std::logic_error);
}

TEST(JobLimits, LargeNumbersAreRefusedAsTooLargeNeverWrapped) {
    const std::uint64_t two_to_the_63 = 9223372036854775808ull;
    Refusal refused = refusal_of({{"max_steps", two_to_the_63}});
    EXPECT_EQ(refused.field, "max_steps");
    EXPECT_TRUE(has(refused.message, "is 9223372036854775808, more than 100000000"))
        << refused.message;
    EXPECT_FALSE(has(refused.message, "-9223372036854775808")) << refused.message;
    refused = refusal_of({{"max_steps", 1e19}});
    EXPECT_TRUE(has(refused.message, "more than")) << refused.message;
    refused = refusal_of({{"max_steps", -1e19}});
    EXPECT_TRUE(has(refused.message, "less than 0")) << refused.message;

    const std::int64_t two_to_the_62 = std::int64_t{1} << 62;
    for (const char* field : {"batch_size", "gradient_accumulation", "epochs", "max_steps"}) {
        refused = refusal_of({{field, two_to_the_62}});
        EXPECT_EQ(refused.field, field);
        EXPECT_TRUE(has(refused.message, "more than")) << refused.message;
    }
    refused = refusal_of({{"batch_size", 1000000}});
    EXPECT_TRUE(has(refused.message, "more than 1024")) << refused.message;
    refused = refusal_of({{"validation", {{"frames", 1000000001}}}});
    EXPECT_EQ(refused.field, "validation.frames");
    refused = refusal_of({{"validation", {{"height", 65536}, {"width", 65536}}}});
    EXPECT_EQ(refused.field, "validation.height");
    EXPECT_EQ(refusal_of({{"parallel", {{"plan", "hybrid"}, {"sp_size", two_to_the_62}}}}).field,
              "parallel.sp_size");
    EXPECT_EQ(refusal_of({{"lora", {{"rank", two_to_the_62}}}}).field, "lora.rank");
    EXPECT_EQ(refusal_of({{"checkpoints", {{"keep", two_to_the_62}}}}).field, "checkpoints.keep");
    EXPECT_EQ(refusal_of({{"lr_schedule", {{"warmup_steps", two_to_the_62}}}}).field,
              "lr_schedule.warmup_steps");
    EXPECT_EQ(refusal_of({{"validation", {{"steps", 1000000}}}}).field, "validation.steps");
    EXPECT_EQ(refusal_of({{"dataset", {{"frame_buckets", {two_to_the_63}}}}}).field,
              "dataset.frame_buckets");
    EXPECT_TRUE(
        has(refusal_of({{"dataset", {{"resolution_buckets", {{two_to_the_63, 480}}}}}}).message,
            "beyond 4096"));
    // 20,000 validation prompts would be hours of sampling at every validation.
    refused = refusal_of({{"validation", {{"prompts", std::vector<std::string>(20000, "a")}}}});
    EXPECT_EQ(refused.field, "validation.prompts");
    EXPECT_TRUE(has(refused.message, "more than 64")) << refused.message;
    // Seeds take the whole of int64; beyond it is too large, not negative.
    EXPECT_EQ(TrainingJob::from_json({{"seed", INT64_MAX}}, "job.json").seed,
              static_cast<std::uint64_t>(INT64_MAX));
    EXPECT_TRUE(has(refusal_of({{"seed", two_to_the_63}}).message, "more than")) << "seed";

    // The limits themselves are accepted.
    const TrainingJob largest = TrainingJob::from_json(
        {{"batch_size", kMaxBatchSize},
         {"max_steps", kMaxSteps},
         {"gradient_accumulation", kMaxGradientAccumulation},
         {"validation",
          {{"frames", kMaxBucketFrames}, {"height", kMaxBucketSide}, {"width", kMaxBucketSide}}}},
        "job.json");
    EXPECT_EQ(largest.batch_size, kMaxBatchSize);
    EXPECT_EQ(largest.validation.frames, kMaxBucketFrames);
}

TEST(JobLimits, NullIsRefusedWhereItMeansNothing) {
    for (const char* field : {"max_steps", "dataset", "model", "mode", "seed", "device", "lora"}) {
        const Refusal refused = refusal_of({{field, nullptr}});
        EXPECT_EQ(refused.field, field);
        EXPECT_TRUE(has(refused.message, "is null")) << refused.message;
    }
    EXPECT_EQ(refusal_of({{"validation", {{"prompts", nullptr}}}}).field, "validation.prompts");
    EXPECT_EQ(refusal_of({{"optimizer", {{"lr", nullptr}}}}).field, "optimizer.lr");
    // A string is no number either ("max_steps": "12" was already refused; null now is too).
    EXPECT_EQ(refusal_of({{"max_steps", "12"}}).field, "max_steps");
    // Null is "unset" for the fields that have an unset state, as to_json writes them.
    const TrainingJob unset = TrainingJob::from_json({{"checkpointed_blocks", nullptr},
                                                      {"optimizer", {{"beta3", nullptr}}},
                                                      {"validation", {{"guidance_2", nullptr}}},
                                                      {"flow_matching", {{"shift", nullptr}}}},
                                                     "job.json");
    EXPECT_FALSE(unset.checkpointed_blocks.has_value());
    EXPECT_FALSE(unset.optimizer.beta3.has_value());
    EXPECT_FALSE(unset.validation.guidance_2.has_value());
    EXPECT_FALSE(unset.flow_matching.shift.has_value());
}

TEST(JobLimits, ANulInAnyTextIsRefusedWithItsField) {
    const std::string cut = std::string("clips/good.mp4") + '\0' + ".txt";
    Refusal refused = refusal_of({{"model", cut}});
    EXPECT_EQ(refused.field, "model");
    EXPECT_TRUE(has(refused.message, "NUL")) << refused.message;
    EXPECT_TRUE(has(refused.message, "byte 15")) << refused.message;
    EXPECT_EQ(refusal_of({{"dataset", {{"manifest", cut}}}}).field, "dataset.manifest");
    EXPECT_EQ(refusal_of({{"dataset", {{"cache_dir", cut}}}}).field, "dataset.cache_dir");
    EXPECT_EQ(refusal_of({{"trigger_word", cut}}).field, "trigger_word");
    refused = refusal_of({{"validation", {{"prompts", {"a red ball", cut}}}}});
    EXPECT_EQ(refused.field, "validation.prompts");
    EXPECT_TRUE(has(refused.message, "item 2")) << refused.message;
    EXPECT_EQ(refusal_of({{"task", "i2v"}, {"validation", {{"prompts", {"a"}}, {"images", {cut}}}}})
                  .field,
              "validation.images");
}

TEST(JobLimits, PathsAndTextsHaveLengths) {
    // A 10 MB model path used to reach the file system as "File name too long".
    Refusal refused = refusal_of({{"model", std::string(10 << 20, 'a')}});
    EXPECT_EQ(refused.field, "model");
    EXPECT_TRUE(has(refused.message, "more than 4096")) << refused.message;
    refused = refusal_of({{"model", "models/" + std::string(300, 'a') + "/x"}});
    EXPECT_TRUE(has(refused.message, "name of 300 bytes")) << refused.message;
    EXPECT_TRUE(refusal_of({{"model", "models/" + std::string(255, 'a') + "/x"}}).message.empty());
    EXPECT_EQ(refusal_of({{"trigger_word", std::string(257, 'x')}}).field, "trigger_word");
    EXPECT_EQ(
        refusal_of({{"validation", {{"prompts", {std::string(kMaxPromptBytes + 1, 'x')}}}}}).field,
        "validation.prompts");
    EXPECT_EQ(refusal_of({{"lora", {{"targets", std::vector<std::string>(65, "to_q")}}}}).field,
              "lora.targets");
    EXPECT_EQ(refusal_of({{"dataset", {{"frame_buckets", std::vector<int>(33, 49)}}}}).field,
              "dataset.frame_buckets");
}

TEST(JobLimits, DeviceNumbersFitADeviceIndex) {
    EXPECT_EQ(TrainingJob::from_json({{"device", "cuda:127"}}, "job.json").device, "cuda:127");
    EXPECT_EQ(refusal_of({{"device", "cuda:128"}}).field, "device");
    EXPECT_EQ(refusal_of({{"device", "cuda:99999999999999999999"}}).field, "device");
    EXPECT_EQ(refusal_of({{"device", "cuda:"}}).field, "device");
}

TEST(JobLimits, AManifestPathWithANulIsRefusedWithItsLine) {
    const ManifestReadResult read =
        parse_manifest("{\"v\":1,\"path\":\"clips/a.mp4\",\"caption\":\"a\"}\n"
                       "{\"v\":1,\"path\":\"clips/good.mp4\\u0000.txt\",\"caption\":\"b\"}\n",
                       "data.jsonl");
    ASSERT_EQ(read.entries.size(), 1u);
    EXPECT_EQ(read.entries[0].path, "clips/a.mp4");
    ASSERT_EQ(read.issues.size(), 1u);
    EXPECT_EQ(read.issues[0].line, 2);
    EXPECT_EQ(read.issues[0].field, "path");
    EXPECT_TRUE(has(read.issues[0].message, "NUL")) << read.issues[0].message;
    // The studio's export refuses to write one too.
    ManifestEntry entry;
    entry.path = std::string("clips/good.mp4") + '\0' + ".txt";
    EXPECT_FALSE(validate_manifest_entry(entry).empty());
}

} // namespace
} // namespace tuneframe::common
