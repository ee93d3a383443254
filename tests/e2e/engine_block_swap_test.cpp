// memory.blocks_to_swap through the engine's command line on the tiny Wan pipeline (prepared
// from clips made here): a run with every block swapped gives the losses and the adapter of the
// same run without swapping, bit for bit, and so does one SIGKILLed midway and resumed; two
// pipeline stages each swapping their own block train as one unswapped process; --check refuses
// more blocks than the model has, naming the field; `estimate` puts the swapped blocks in host
// memory and two in flight on the device.
#include "common/training_job.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/e2e/engine_test_project.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::EngineRun;
using test::run_engine;

class EngineBlockSwap : public ::testing::Test {
protected:
    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    static fs::path wan_run(const std::string& name, const json& edits, bool prepared = true) {
        json wan = {{"model", test::tiny_wan_pipeline("wan2.1-tiny").string()},
                    {"dataset", {{"cache_dir", (project_->folder() / "wan-cache").string()}}},
                    {"max_steps", 5},
                    {"seed", 13},
                    {"validation", {{"sampler", ""}}}};
        wan = common::merge_job_json(wan, edits);
        return prepared ? project_->prepared_run(name, wan) : project_->new_run(name, wan);
    }

    static test::TrainingProject* project_;
};

test::TrainingProject* EngineBlockSwap::project_ = nullptr;

std::vector<double> losses(const EngineRun& run) {
    std::vector<double> values;
    for (const json& step : run.of("step")) {
        values.push_back(step["loss"].get<double>());
    }
    return values;
}

void expect_same_tensors(const fs::path& a_file, const fs::path& b_file) {
    const core::SafetensorsFile a(a_file);
    const core::SafetensorsFile b(b_file);
    ASSERT_EQ(a.tensors().size(), b.tensors().size());
    ASSERT_FALSE(a.tensors().empty());
    for (const core::TensorInfo& tensor : a.tensors()) {
        const core::TensorInfo& other = b.at(tensor.name);
        ASSERT_EQ(tensor.nbytes(), other.nbytes());
        EXPECT_EQ(std::memcmp(a.data(tensor), b.data(other), tensor.nbytes()), 0) << tensor.name;
    }
}

fs::path last_adapter(const fs::path& run) {
    return run / "checkpoints" / "step-5" / "trainable.safetensors";
}

TEST_F(EngineBlockSwap, ASwappedRunMatchesTheUnswappedOneAndResumesAfterAKill) {
    const fs::path plain = wan_run("plain", json::object());
    const EngineRun unswapped = run_engine({"train", "--job", test::job_of(plain)});
    ASSERT_EQ(unswapped.exit_code, 0);

    const json swap = {{"memory", {{"blocks_to_swap", 2}}}};
    const fs::path swapped = wan_run("swapped", swap);
    const EngineRun with_swap = run_engine({"train", "--job", test::job_of(swapped)});
    ASSERT_EQ(with_swap.exit_code, 0);
    EXPECT_EQ(losses(with_swap), losses(unswapped));
    ASSERT_EQ(losses(with_swap).size(), 5u);
    expect_same_tensors(last_adapter(swapped), last_adapter(plain));

    const fs::path killed = wan_run("killed", swap);
    const EngineRun interrupted = run_engine(
        {"train", "--job", test::job_of(killed)}, [](test::ChildProcess& child, const json& event) {
            if (event["type"] == "step" && event["step"] == 3) {
                child.kill(SIGKILL);
                return false;
            }
            return true;
        });
    EXPECT_EQ(interrupted.exit_code, -1);
    const EngineRun resumed = run_engine({"train", "--job", test::job_of(killed)});
    ASSERT_EQ(resumed.exit_code, 0);
    ASSERT_FALSE(resumed.of("step").empty());
    EXPECT_LE(resumed.of("step").front()["step"].get<int>(), 4);
    expect_same_tensors(last_adapter(killed), last_adapter(plain));
}

// memory.blocks_to_swap counts within a pipeline stage: each of the two stages swaps its one
// block, rank 0 validates with a whole model swapping as many, and the losses are one process's.
TEST_F(EngineBlockSwap, PipelineStagesSwapTheirOwnBlocksAndTrainAsOneProcess) {
    const json accumulated = {{"batch_size", 1}, {"gradient_accumulation", 2}, {"max_steps", 3}};
    const fs::path one = wan_run("one-process", accumulated);
    const EngineRun reference = run_engine({"train", "--job", test::job_of(one)});
    ASSERT_EQ(reference.exit_code, 0);

    json staged = accumulated;
    staged["parallel"] = {{"plan", "hybrid"}, {"pp_size", 2}};
    staged["memory"] = {{"blocks_to_swap", 1}};
    staged["validation"] = {{"every_steps", 3}, {"prompts", {"tfdemo a red ball rolls"}},
                            {"frames", 9},      {"height", 48},
                            {"width", 64},      {"steps", 2}};
    const fs::path pp = wan_run("pp2-swapped", staged);
    const EngineRun run =
        run_engine({"launch", "--cpu-ranks", "2", "--", "train", "--job", test::job_of(pp)});
    ASSERT_EQ(run.exit_code, 0);
    const std::vector<double> got = losses(run);
    const std::vector<double> expected = losses(reference);
    ASSERT_EQ(got.size(), 3u);
    ASSERT_EQ(expected.size(), 3u);
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], expected[i], 1e-5) << "step " << i + 1;
    }
    EXPECT_EQ(run.of("validation").size(), 1u);
}

TEST_F(EngineBlockSwap, CheckRefusesMoreBlocksThanTheModelHasAndEstimateCountsTheHost) {
    const fs::path deep = wan_run("deep", {{"memory", {{"blocks_to_swap", 3}}}}, false);
    const EngineRun refused = run_engine({"train", "--check", "--job", test::job_of(deep)});
    EXPECT_NE(refused.exit_code, 0);
    ASSERT_EQ(refused.of("error").size(), 1u);
    const json error = refused.of("error")[0];
    EXPECT_EQ(error["field"], "memory.blocks_to_swap") << error.dump();
    EXPECT_NE(error["message"].get<std::string>().find("2 transformer blocks"), std::string::npos)
        << error.dump();

    const fs::path shallow = wan_run("shallow", {{"memory", {{"blocks_to_swap", 1}}}}, false);
    const EngineRun estimated = run_engine({"estimate", "--job", test::job_of(shallow)});
    ASSERT_EQ(estimated.exit_code, 0);
    const json summary = estimated.of("done").at(0)["summary"];
    EXPECT_EQ(summary["swapped_blocks"], 1);
    EXPECT_GT(summary["host_peak"].get<std::uint64_t>(), 0u);
    bool swapped_on_host = false;
    for (const json& part : summary["host_phases"][1]["parts"]) {
        swapped_on_host = swapped_on_host || part["name"] == "swapped blocks";
    }
    EXPECT_TRUE(swapped_on_host) << summary.dump();
}

} // namespace
} // namespace tuneframe
