// The Wan family trained on real 2-rank Gloo groups through the engine's commands (`launch
// --cpu-ranks 2 -- train`), under each parallel plan, against one process doing the same work:
// data parallel and ZeRO-2, sequence parallel (with Wan 2.2 TI2V's per-token timesteps),
// tensor parallel (with Wan 2.1 I2V's CLIP tokens), pipeline parallel, and a two-expert model.
#include "common/training_job.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/e2e/engine_test_project.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::EngineRun;
using test::job_of;
using test::run_engine;

// Four steps of batch 2 over the six clips, the last one checkpointed, so only the numbers
// differ between a run and its reference. Adam's epsilon is 1e-5 rather than 1e-8: with 1e-8,
// Adam turns float32 rounding, which differs with how a batch is split over ranks, into
// update-sized differences wherever a gradient element is near zero. The adapters of the
// cross-attention keys (blocks.N.attn2.to_k, which see 512 text tokens, ~490 of them the same
// padding) get the smallest gradients, about 1e-5 where others reach 1e-2, and end four steps
// 1e-4 of the adapter apart while the losses and gradient norms agree to 1e-7; with 1e-5 the
// runs agree to 3e-6 on LibTorch 1.13 and 1.1e-5 under tensor parallelism on 2.6 (whose CPU
// GEMMs split the sums differently), so the tensor-parallel bound is 3e-5, still a thousandth of
// what one wrong shard or a missing all-reduce moves an adapter.
constexpr double kTensorParallelAdapterBound = 3e-5;
const json kAdam = {{"eps", 1e-5}};
const json kSteps = {
    {"max_steps", 4}, {"seed", 5}, {"optimizer", kAdam}, {"checkpoints", {{"every_steps", 0}}}};
// The same over micro-batches: what pipeline stages take a step's batches as.
const json kAccumulated = {{"max_steps", 4},
                           {"seed", 5},
                           {"optimizer", kAdam},
                           {"batch_size", 1},
                           {"gradient_accumulation", 2},
                           {"checkpoints", {{"every_steps", 0}}}};
// Wan 2.2 TI2V's VAE and patches need sizes in multiples of 32 pixels.
const json kSquareBuckets = {{"resolution_buckets", {{64, 64}}}};

// The tiny Wan 2.1 transformer: each all-reduces at least three times going forward (both
// attentions' and the feed-forward's partial outputs) and three times going back (their
// inputs' gradients) under tensor parallelism.
constexpr int kTinyBlocks = 2;

std::map<std::string, std::vector<float>> adapter(const fs::path& run, int step) {
    const core::SafetensorsFile file(run / "checkpoints" / ("step-" + std::to_string(step)) /
                                     "trainable.safetensors");
    std::map<std::string, std::vector<float>> values;
    for (const core::TensorInfo& tensor : file.tensors()) {
        const auto* data = reinterpret_cast<const float*>(file.data(tensor));
        values[tensor.name].assign(data, data + tensor.nbytes() / sizeof(float));
    }
    return values;
}

// The largest difference between two runs' adapters, relative to the largest value.
double adapter_difference(const fs::path& a, int step_a, const fs::path& b, int step_b) {
    const auto left = adapter(a, step_a);
    const auto right = adapter(b, step_b);
    EXPECT_EQ(left.size(), right.size());
    double largest = 0;
    double difference = 0;
    for (const auto& [name, values] : left) {
        const auto other = right.find(name);
        if (other == right.end() || other->second.size() != values.size()) {
            ADD_FAILURE() << name << " differs in presence or size";
            return 1;
        }
        for (std::size_t i = 0; i < values.size(); ++i) {
            largest = std::max(largest, static_cast<double>(std::abs(values[i])));
            difference =
                std::max(difference, static_cast<double>(std::abs(values[i] - other->second[i])));
        }
    }
    return difference / std::max(largest, 1e-12);
}

double adapter_difference(const fs::path& a, const fs::path& b, int step) {
    return adapter_difference(a, step, b, step);
}

// Bytes of the adapter's float32 tensors: the trainable gradient bytes P.
std::int64_t adapter_bytes(const fs::path& run, int step) {
    std::int64_t bytes = 0;
    for (const auto& [name, values] : adapter(run, step)) {
        bytes += static_cast<std::int64_t>(values.size() * sizeof(float));
    }
    return bytes;
}

EngineRun launch(const fs::path& run) {
    return run_engine({"launch", "--cpu-ranks", "2", "--", "train", "--job", job_of(run)});
}

// Each step's loss equals the reference's within `tolerance`; returns the steps.
std::vector<json> expect_same_losses(const EngineRun& run, const EngineRun& reference,
                                     double tolerance) {
    const std::vector<json> steps = run.of("step");
    const std::vector<json> expected = reference.of("step");
    EXPECT_EQ(steps.size(), expected.size());
    for (std::size_t i = 0; i < std::min(steps.size(), expected.size()); ++i) {
        EXPECT_EQ(steps[i]["mem"].size(), 2u) << steps[i].dump();
        EXPECT_NEAR(steps[i]["loss"].get<double>(), expected[i]["loss"].get<double>(), tolerance)
            << "step " << i + 1;
    }
    return steps;
}

// Rank 0 sampled the validation video of the run's last step, and no rank left a scratch copy.
void expect_rank_0_validated(const EngineRun& run, const fs::path& folder) {
    ASSERT_EQ(run.of("validation").size(), 1u);
    const fs::path video = run.of("validation").front()["video"].get<std::string>();
    ASSERT_TRUE(fs::exists(video)) << video;
    EXPECT_GT(fs::file_size(video), 0u);
    for (const auto& entry : fs::directory_iterator(folder / "validation")) {
        EXPECT_EQ(entry.path().filename().string().rfind(".rank-", 0), std::string::npos)
            << entry.path();
    }
    ASSERT_EQ(run.of("done").size(), 1u);
    EXPECT_EQ(run.of("done").front()["status"], "finished");
}

class EngineWanMultirank : public ::testing::Test {
protected:
    // One process's run, made once for every test that compares with it.
    struct Reference {
        fs::path folder;
        EngineRun run;
    };

    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete references_;
        references_ = nullptr;
        delete project_;
        project_ = nullptr;
    }

    // A prepared run of the tiny Wan pipeline `arch`, with its own latent cache.
    static fs::path prepared_run(const std::string& name, const std::string& arch,
                                 const json& edits) {
        json wan = {{"model", test::tiny_wan_pipeline(arch).string()},
                    {"dataset", {{"cache_dir", (project_->folder() / arch).string()}}},
                    {"validation", {{"sampler", ""}}}};
        return project_->prepared_run(name, common::merge_job_json(wan, edits));
    }

    // `name` trained by one process, on first use.
    static const Reference& reference(const std::string& name, const std::string& arch,
                                      const json& edits) {
        if (!references_) {
            references_ = new std::map<std::string, Reference>;
        }
        auto found = references_->find(name);
        if (found == references_->end()) {
            Reference made;
            made.folder = prepared_run(name, arch, edits);
            made.run = run_engine({"train", "--job", job_of(made.folder)});
            found = references_->emplace(name, std::move(made)).first;
        }
        EXPECT_EQ(found->second.run.exit_code, 0) << name;
        return found->second;
    }

    // Wan 2.1 text-to-video, batch 2, also checkpointed at step 2 to show how far two steps
    // move the adapter.
    static const Reference& text_to_video() {
        json edits = kSteps;
        edits["checkpoints"]["every_steps"] = 2;
        return reference("t2v", "wan2.1-tiny", edits);
    }

    // `edits` of a reference under `parallel` with `batch` per rank, validated at its end.
    static fs::path two_ranks(const std::string& name, const std::string& arch, json edits,
                              const json& parallel, int batch, json validation = json::object()) {
        edits["batch_size"] = batch;
        edits["parallel"] = parallel;
        edits["validation"] = common::merge_job_json({{"every_steps", edits["max_steps"]},
                                                      {"prompts", {"tfdemo a red ball rolls"}},
                                                      {"frames", 9},
                                                      {"height", 48},
                                                      {"width", 64},
                                                      {"steps", 2}},
                                                     validation);
        return prepared_run(name, arch, edits);
    }

    static json image_validation(int size) {
        return {{"height", size},
                {"width", 64},
                {"images", {(project_->folder() / "clips" / "clip0.mp4").string()}}};
    }

    static test::TrainingProject* project_;
    static std::map<std::string, Reference>* references_;
};

test::TrainingProject* EngineWanMultirank::project_ = nullptr;
std::map<std::string, EngineWanMultirank::Reference>* EngineWanMultirank::references_ = nullptr;

TEST_F(EngineWanMultirank, DataParallelTwoRanksOfBatchOneEqualOneRankOfBatchTwo) {
    const Reference& single = text_to_video();
    const fs::path ddp = two_ranks("ddp", "wan2.1-tiny", kSteps, {{"plan", "ddp"}}, 1);
    const EngineRun run = launch(ddp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-4);
    ASSERT_EQ(steps.size(), 4u);
    // Every step all-reduced the whole adapter's gradients (one bucket) and the step's totals.
    const std::int64_t p = adapter_bytes(ddp, 4);
    for (const json& step : steps) {
        EXPECT_EQ(step["mem"][1]["rank"], 1);
        EXPECT_GE(step["comm"]["all_reduce"].get<int>(), 2);
        EXPECT_GE(step["comm"]["bytes"].get<std::int64_t>(), p);
    }
    EXPECT_LT(adapter_difference(single.folder, ddp, 4), 1e-4);
    // The comparison can fail: two steps move the adapter much more than the tolerance.
    EXPECT_GT(adapter_difference(single.folder, 2, single.folder, 4), 1e-3);
    expect_rank_0_validated(run, ddp);
}

// Gradients travel in buckets of 1 KiB (one adapter layer's two tensors), small next to the
// adapter's 16 KiB, so the bound below can fail.
constexpr double kBucketMb = 1.0 / 1024;

TEST_F(EngineWanMultirank, ZeroTwoKeepsAGradientShardAndEqualsOneRank) {
    const Reference& single = text_to_video();
    const fs::path zero =
        two_ranks("zero2", "wan2.1-tiny", kSteps, {{"plan", "zero2"}, {"bucket_mb", kBucketMb}}, 1);
    const EngineRun run = launch(zero);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-4);
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_GT(steps.back()["comm"]["all_gather"].get<int>(), 0);
    const auto whole = single.run.of("step").back()["mem"][0]["optimizer_state"].get<double>();
    const auto rank0 = steps.back()["mem"][0]["optimizer_state"].get<double>();
    const auto rank1 = steps.back()["mem"][1]["optimizer_state"].get<double>();
    ASSERT_GT(whole, 0);
    EXPECT_NEAR(rank0 + rank1, whole, whole * 1e-6);
    EXPECT_LT(rank0, 0.6 * whole);
    EXPECT_LT(rank1, 0.6 * whole);
    // A rank holds its half of the gradients plus one bucket, after the first step (whose
    // buckets follow registration order until they are rebuilt in arrival order).
    const std::int64_t p = adapter_bytes(zero, 4);
    const auto bucket = static_cast<std::int64_t>(kBucketMb * (1 << 20));
    ASSERT_GT(p, 4 * bucket);
    for (const json& step : steps) {
        if (step["step"] == 1) {
            continue;
        }
        for (const json& rank : step["mem"]) {
            const auto held = rank["gradients"].get<std::int64_t>();
            EXPECT_GT(held, 0);
            EXPECT_LE(held, p / 2 + bucket) << "step " << step["step"] << " rank " << rank["rank"];
        }
    }
    EXPECT_LT(adapter_difference(single.folder, zero, 4), 1e-4);
    const fs::path checkpoint = zero / "checkpoints" / "step-4";
    EXPECT_TRUE(fs::exists(checkpoint / "optimizer-rank-0-of-2.safetensors"));
    EXPECT_TRUE(fs::exists(checkpoint / "optimizer-rank-1-of-2.safetensors"));
    expect_rank_0_validated(run, zero);
}

TEST_F(EngineWanMultirank, SequenceParallelTwoRanksEqualOneRank) {
    const Reference& single = text_to_video();
    const fs::path sp =
        two_ranks("sp2", "wan2.1-tiny", kSteps, {{"plan", "hybrid"}, {"sp_size", 2}}, 2);
    const EngineRun run = launch(sp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-4);
    ASSERT_EQ(steps.size(), 4u);
    for (const json& step : steps) {
        // Each block's self-attention trades tokens for heads (query, key, value) and back (its
        // output) going forward, and their gradients going back.
        EXPECT_GE(step["comm"]["all_to_all"].get<int>(), 8 * kTinyBlocks) << step.dump();
    }
    EXPECT_LT(adapter_difference(single.folder, sp, 4), 1e-4);
    expect_rank_0_validated(run, sp);
}

// Wan 2.2 TI2V image-to-video gives the image's tokens timestep 0 and the others the drawn one:
// each rank's run of the tokens must take its own run of the timesteps.
TEST_F(EngineWanMultirank, SequenceParallelSplitsPerTokenTimestepsWithTheTokens) {
    json edits = kSteps;
    edits["task"] = "i2v";
    edits["dataset"] = kSquareBuckets;
    const Reference& single = reference("ti2v-i2v", "wan2.2-tiny-ti2v", edits);
    const fs::path sp = two_ranks("ti2v-i2v-sp2", "wan2.2-tiny-ti2v", edits,
                                  {{"plan", "hybrid"}, {"sp_size", 2}}, 2, image_validation(64));
    const EngineRun run = launch(sp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-4);
    ASSERT_EQ(steps.size(), 4u);
    for (const json& step : steps) {
        EXPECT_GE(step["comm"]["all_to_all"].get<int>(), 8 * kTinyBlocks) << step.dump();
    }
    EXPECT_LT(adapter_difference(single.folder, sp, 4), 1e-4);
    expect_rank_0_validated(run, sp);
}

TEST_F(EngineWanMultirank, TensorParallelTwoRanksEqualOneRank) {
    const Reference& single = text_to_video();
    const fs::path tp =
        two_ranks("tp2", "wan2.1-tiny", kSteps, {{"plan", "hybrid"}, {"tp_size", 2}}, 2);
    const EngineRun run = launch(tp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-5);
    ASSERT_EQ(steps.size(), 4u);
    for (const json& step : steps) {
        EXPECT_GE(step["comm"]["all_reduce"].get<int>(), 6 * kTinyBlocks) << step.dump();
        EXPECT_EQ(step["comm"]["all_to_all"].get<int>(), 0);
    }
    // The checkpoint holds the whole adapter, joined from both ranks' parts.
    EXPECT_EQ(adapter_bytes(tp, 4), adapter_bytes(single.folder, 4));
    EXPECT_LT(adapter_difference(single.folder, tp, 4), kTensorParallelAdapterBound);
    expect_rank_0_validated(run, tp);
}

// Wan 2.1 I2V's cross-attention also attends to the first frame's CLIP tokens through its own
// key and value projections, which tensor parallelism splits by head with the rest.
TEST_F(EngineWanMultirank, TensorParallelSplitsTheImageAttentionOfImageToVideo) {
    json edits = kSteps;
    edits["task"] = "i2v";
    const Reference& single = reference("i2v", "wan2.1-tiny-i2v", edits);
    const fs::path tp = two_ranks("i2v-tp2", "wan2.1-tiny-i2v", edits,
                                  {{"plan", "hybrid"}, {"tp_size", 2}}, 2, image_validation(48));
    const EngineRun run = launch(tp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, single.run, 1e-5);
    ASSERT_EQ(steps.size(), 4u);
    for (const json& step : steps) {
        EXPECT_GE(step["comm"]["all_reduce"].get<int>(), 6 * kTinyBlocks) << step.dump();
    }
    EXPECT_EQ(adapter_bytes(tp, 4), adapter_bytes(single.folder, 4));
    EXPECT_LT(adapter_difference(single.folder, tp, 4), kTensorParallelAdapterBound);
    expect_rank_0_validated(run, tp);
}

// Two stages of one block each, the step's two batches as micro-batches on the 1F1B schedule:
// the same losses and adapter as one rank accumulating them, each stage holding half of it.
TEST_F(EngineWanMultirank, PipelineTwoStagesOfTwoMicroBatchesEqualOneRank) {
    const Reference& accumulated = reference("accumulated", "wan2.1-tiny", kAccumulated);
    const fs::path pp =
        two_ranks("pp2", "wan2.1-tiny", kAccumulated, {{"plan", "hybrid"}, {"pp_size", 2}}, 1);
    const EngineRun run = launch(pp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = expect_same_losses(run, accumulated.run, 1e-5);
    ASSERT_EQ(steps.size(), 4u);
    const auto reference_steps = accumulated.run.of("step");
    for (std::size_t i = 0; i < steps.size(); ++i) {
        // Rank 0, the first stage, sent each micro-batch's tokens, modulation, projected text
        // and output embedding forward and received their four gradients back.
        EXPECT_EQ(steps[i]["comm"]["send"], 8);
        EXPECT_EQ(steps[i]["comm"]["recv"], 8);
        EXPECT_EQ(steps[i]["comm"]["all_to_all"], 0);
        // Each stage steps its own block's adapter: half the state each.
        const std::int64_t whole = reference_steps[i]["mem"][0]["optimizer_state"];
        EXPECT_EQ(steps[i]["mem"][0]["optimizer_state"].get<std::int64_t>(), whole / 2);
        EXPECT_EQ(steps[i]["mem"][1]["optimizer_state"].get<std::int64_t>(), whole / 2);
    }
    // The checkpoint holds both stages' halves.
    EXPECT_EQ(adapter_bytes(pp, 4), adapter_bytes(accumulated.folder, 4));
    EXPECT_LT(adapter_difference(accumulated.folder, pp, 4), 1e-5);
    expect_rank_0_validated(run, pp);
}

// Wan 2.2 A14B: one expert per run trains on any number of ranks; both together only on one.
TEST_F(EngineWanMultirank, OneExpertOfTwoTrainsOnTwoRanksAndBothAreRefused) {
    json edits = kSteps;
    edits["max_steps"] = 2;
    edits["flow_matching"] = {{"expert", "high_noise"}};
    const Reference& single = reference("a14b-high", "wan2.2-tiny-a14b", edits);
    const fs::path high =
        two_ranks("a14b-high-ddp", "wan2.2-tiny-a14b", edits, {{"plan", "ddp"}}, 1);
    const EngineRun run = launch(high);
    ASSERT_EQ(run.exit_code, 0);
    ASSERT_EQ(expect_same_losses(run, single.run, 1e-4).size(), 2u);
    EXPECT_LT(adapter_difference(single.folder, high, 2), 1e-4);
    // Only the high-noise expert, the first transformer, trained.
    for (const auto& [name, values] : adapter(high, 2)) {
        EXPECT_NE(name.rfind("transformer_2.", 0), 0u) << name;
    }
    expect_rank_0_validated(run, high);

    json both = kSteps;
    both["batch_size"] = 1;
    both["parallel"] = {{"plan", "ddp"}};
    const fs::path refused = prepared_run("a14b-both-ddp", "wan2.2-tiny-a14b", both);
    const EngineRun refusal = launch(refused);
    EXPECT_NE(refusal.exit_code, 0);
    EXPECT_TRUE(refusal.of("step").empty());
    bool explained = false;
    for (const json& error : refusal.of("error")) {
        if (error["code"] == "bad_input" && !error.contains("rank")) {
            const std::string message = error["message"];
            EXPECT_NE(message.find("both experts"), std::string::npos) << message;
            EXPECT_NE(message.find("single process"), std::string::npos) << message;
            EXPECT_NE(error["hint"].get<std::string>().find("flow_matching.expert"),
                      std::string::npos)
                << error.dump();
            explained = true;
        }
    }
    EXPECT_TRUE(explained) << "rank 0 gave no bad_input error";
    ASSERT_FALSE(refusal.of("done").empty());
    EXPECT_EQ(refusal.of("done").back()["status"], "failed");
    const fs::path checkpoints = refused / "checkpoints";
    EXPECT_TRUE(!fs::exists(checkpoints) || fs::is_empty(checkpoints));
}

} // namespace
} // namespace tuneframe
