// Distributed training end to end with real engine processes and 2-rank Gloo groups on the CPU:
// `launch --cpu-ranks 2` with each parallel plan, and ranks started as torchrun and srun start
// them, against one process doing the same work.
#include "common/launch_spec.h"
#include "common/run_queue.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/dist/c10d_version.h"
#include "tests/e2e/engine_test_project.h"
#include "tests/support/free_port.h"
#include "tests/support/process_runner.h"

#include <gtest/gtest.h>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <array>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <optional>
#include <unistd.h>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::EngineRun;
using test::job_of;
using test::run_engine;

// Four steps of batch 2 over six clips, no checkpoints but the last, so only the numbers differ.
const json kSteps = {{"max_steps", 4}, {"seed", 5}, {"checkpoints", {{"every_steps", 0}}}};
const json kAccumulated = {{"max_steps", 4},
                           {"seed", 5},
                           {"batch_size", 2},
                           {"gradient_accumulation", 4},
                           {"checkpoints", {{"every_steps", 0}}}};

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

// The largest difference between two adapters, relative to the largest value.
double adapter_difference(const fs::path& a, const fs::path& b, int step) {
    const auto left = adapter(a, step);
    const auto right = adapter(b, step);
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

// How far training moved the adapter: the difference a wrong gradient would show.
double training_signal(const fs::path& a, const fs::path& b, int step_a, int step_b) {
    const auto left = adapter(a, step_a);
    const auto right = adapter(b, step_b);
    double largest = 0;
    double difference = 0;
    for (const auto& [name, values] : left) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            largest = std::max(largest, static_cast<double>(std::abs(values[i])));
            difference =
                std::max(difference, static_cast<double>(std::abs(values[i] - right.at(name)[i])));
        }
    }
    return difference / std::max(largest, 1e-12);
}

// Bytes of the adapter's float32 tensors: the trainable gradient bytes P.
std::int64_t adapter_bytes(const fs::path& run, int step) {
    std::int64_t bytes = 0;
    for (const auto& [name, values] : adapter(run, step)) {
        bytes += static_cast<std::int64_t>(values.size() * sizeof(float));
    }
    return bytes;
}

// Workers started by hand, as torchrun or srun start them: `env VARIABLES... engine ARGS`.
// Returns rank 0's events and every worker's exit code.
EngineRun run_workers(const std::vector<std::vector<std::string>>& environments,
                      const std::vector<std::string>& arguments, std::vector<int>& exit_codes) {
    std::vector<std::unique_ptr<test::ChildProcess>> workers;
    for (const auto& environment : environments) {
        std::vector<std::string> argv = {"/usr/bin/env", "OMP_NUM_THREADS=1",
                                         "CUDA_VISIBLE_DEVICES="};
        argv.insert(argv.end(), environment.begin(), environment.end());
        argv.push_back(test::engine_path());
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        workers.push_back(std::make_unique<test::ChildProcess>(argv));
    }
    EngineRun run;
    while (auto line = workers.front()->read_line(300)) {
        run.events.push_back(json::parse(*line));
    }
    for (auto& worker : workers) {
        while (worker->read_line(300)) {
        }
        exit_codes.push_back(worker->wait());
    }
    run.exit_code = exit_codes.front();
    return run;
}

EngineRun launch(const fs::path& run, int ranks = 2) {
    return run_engine(
        {"launch", "--cpu-ranks", std::to_string(ranks), "--", "train", "--job", job_of(run)});
}

// Steps 1-2 of `steps` under `parallel`, checkpointed at step 2, for a run that goes on under
// another plan (continue_with).
fs::path first_half(test::TrainingProject& project, const json& steps, const std::string& name,
                    const json& parallel, int batch) {
    json edits = steps;
    edits["max_steps"] = 2;
    edits["batch_size"] = batch;
    edits["parallel"] = parallel;
    edits["checkpoints"] = {{"every_steps", 2}};
    return project.prepared_run(name, edits);
}

// The job of `run` made to go on to step 4 under `parallel`.
void continue_with(const fs::path& run, const json& parallel, int batch) {
    json job = json::parse(std::ifstream(job_of(run)));
    job["max_steps"] = 4;
    job["batch_size"] = batch;
    job["parallel"] = parallel;
    std::ofstream(job_of(run)) << job.dump();
}

class EngineMultirank : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        project_ = new test::TrainingProject;
        // The reference: one process, batch 2.
        single_ = new fs::path(project_->prepared_run("single", kSteps));
        single_run_ = new EngineRun(run_engine({"train", "--job", job_of(*single_)}));
    }
    static void TearDownTestSuite() {
        delete accumulated_run_;
        delete accumulated_;
        delete single_run_;
        delete single_;
        delete project_;
    }

    static fs::path two_ranks(const std::string& name, const json& parallel, int batch = 1) {
        json edits = kSteps;
        edits["batch_size"] = batch;
        edits["parallel"] = parallel;
        return project_->prepared_run(name, edits);
    }

    // One process, batch 2, four batches accumulated per step: what the pipeline plans,
    // whose stages take the step's batches as micro-batches, must equal. Made on first use.
    static const fs::path& accumulated() {
        if (!accumulated_) {
            accumulated_ = new fs::path(project_->prepared_run("accumulated", kAccumulated));
            accumulated_run_ = new EngineRun(run_engine({"train", "--job", job_of(*accumulated_)}));
        }
        return *accumulated_;
    }

    static test::TrainingProject* project_;
    static fs::path* single_;
    static EngineRun* single_run_;
    static fs::path* accumulated_;
    static EngineRun* accumulated_run_;
};

test::TrainingProject* EngineMultirank::project_ = nullptr;
fs::path* EngineMultirank::single_ = nullptr;
EngineRun* EngineMultirank::single_run_ = nullptr;
fs::path* EngineMultirank::accumulated_ = nullptr;
EngineRun* EngineMultirank::accumulated_run_ = nullptr;

TEST_F(EngineMultirank, DataParallelTwoRanksOfBatchOneEqualOneRankOfBatchTwo) {
    ASSERT_EQ(single_run_->exit_code, 0);
    const fs::path ddp = two_ranks("ddp", {{"plan", "ddp"}});
    const EngineRun run = launch(ddp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    ASSERT_EQ(steps.size(), 4u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_EQ(steps[i]["mem"].size(), 2u);
        EXPECT_EQ(steps[i]["mem"][1]["rank"], 1);
        EXPECT_GT(steps[i]["comm"]["all_reduce"].get<int>(), 0);
        // The replicas' mean loss is the loss of the whole batch.
        EXPECT_NEAR(steps[i]["loss"].get<double>(),
                    single_run_->of("step")[i]["loss"].get<double>(), 1e-4);
    }
    EXPECT_EQ(run.of("done").size(), 1u);
    EXPECT_EQ(run.of("done").front()["status"], "finished");
    EXPECT_LT(adapter_difference(*single_, ddp, 4), 1e-4);
    // The comparison can fail: the adapter moved much more than the tolerance.
    const fs::path fresh = project_->prepared_run("one-step", {{"max_steps", 1}, {"seed", 5}});
    ASSERT_EQ(run_engine({"train", "--job", job_of(fresh)}).exit_code, 0);
    EXPECT_GT(training_signal(*single_, fresh, 4, 1), 1e-3);
}

// The engine's queue runner starts a run on the processes its launch.json names, as the studio
// would; a launch.json that names no valid plan fails that run alone, naming the file.
TEST_F(EngineMultirank, TheQueueStartsARunOnTheRanksItsLaunchPlanNames) {
    const fs::path ranks = two_ranks("queued-ddp", {{"plan", "ddp"}});
    core::write_json_file(ranks / common::LaunchSpec::kFileName, {{"cpu_ranks", 2}});
    const fs::path broken = project_->prepared_run("queued-broken", kSteps);
    core::write_json_file(broken / common::LaunchSpec::kFileName,
                          {{"gpus", {0}}, {"cpu_ranks", 2}});
    // Preparing wrote these; the refused run must add nothing.
    const auto prepared_events = fs::file_size(broken / "events.jsonl");
    common::RunQueue queue;
    queue.running = true;
    queue.continue_past_failure = true;
    queue.runs = {{1, broken.string()}, {2, ranks.string()}};
    const fs::path file = project_->folder() / "queue-launch.json";
    core::write_json_file(file, queue.to_json());

    const EngineRun runner = run_engine({"queue", "--file", file.string()});
    ASSERT_EQ(runner.exit_code, 0);
    EXPECT_EQ(runner.of("done")[0]["summary"]["failed"], 1);
    bool named = false;
    for (const json& log : runner.of("log")) {
        const std::string message = log["message"];
        named = named || (message.find((broken / "launch.json").string()) != std::string::npos &&
                          message.find("cpu_ranks") != std::string::npos);
    }
    EXPECT_TRUE(named) << "no log names the broken launch.json and its field";
    EXPECT_EQ(fs::file_size(broken / "events.jsonl"), prepared_events);

    std::ifstream events(ranks / "events.jsonl");
    std::string line;
    std::vector<json> steps;
    json last;
    while (std::getline(events, line)) {
        last = json::parse(line);
        if (last["type"] == "step") {
            steps.push_back(last);
        }
    }
    ASSERT_EQ(steps.size(), 4u);
    for (const json& step : steps) {
        EXPECT_EQ(step["mem"].size(), 2u) << step.dump();
    }
    EXPECT_EQ(last["type"], "done");
    EXPECT_EQ(last["status"], "finished");
}

// Gradients travel in buckets of 1 KiB (two adapter tensors), so "one bucket" is small next to
// the adapter's 8 KiB and the bound below can fail.
constexpr double kBucketMb = 1.0 / 1024;

TEST_F(EngineMultirank, ZeroTwoKeepsAGradientShardAndEqualsOneRank) {
    const fs::path zero = two_ranks("zero2", {{"plan", "zero2"}, {"bucket_mb", kBucketMb}});
    const EngineRun run = launch(zero);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_GT(steps.back()["comm"]["all_gather"].get<int>(), 0);
    const auto whole = single_run_->of("step").back()["mem"][0]["optimizer_state"].get<double>();
    const auto rank0 = steps.back()["mem"][0]["optimizer_state"].get<double>();
    const auto rank1 = steps.back()["mem"][1]["optimizer_state"].get<double>();
    ASSERT_GT(whole, 0);
    EXPECT_NEAR(rank0 + rank1, whole, whole * 1e-6);
    EXPECT_LT(rank0, 0.6 * whole);
    EXPECT_LT(rank1, 0.6 * whole);
    // The most gradient bytes a rank held in a step: its half of P plus one bucket — where ddp
    // holds P in .grad and P again in its buckets. Not in the first step, whose buckets follow
    // registration order and fill several at once until they are rebuilt in arrival order.
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
    EXPECT_LT(adapter_difference(*single_, zero, 4), 1e-4);
    const fs::path checkpoint = zero / "checkpoints" / "step-4";
    EXPECT_TRUE(fs::exists(checkpoint / "optimizer-rank-0-of-2.safetensors"));
    EXPECT_TRUE(fs::exists(checkpoint / "optimizer-rank-1-of-2.safetensors"));
    const json index = json::parse(std::ifstream(checkpoint / "optimizer.index.json"));
    EXPECT_EQ(index["shards"], 2);
    EXPECT_FALSE(index["tensors"].empty());
}

TEST_F(EngineMultirank, ZeroOneShardsTheOptimizerStateAndEqualsOneRank) {
    const fs::path zero = two_ranks("zero1", {{"plan", "zero1"}, {"bucket_mb", kBucketMb}});
    const EngineRun run = launch(zero);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_GT(steps.back()["comm"]["all_reduce"].get<int>(), 0);
    EXPECT_GT(steps.back()["comm"]["all_gather"].get<int>(), 0);
    const auto whole = single_run_->of("step").back()["mem"][0]["optimizer_state"].get<double>();
    for (const json& rank : steps.back()["mem"]) {
        EXPECT_LT(rank["optimizer_state"].get<double>(), 0.6 * whole);
        // Gradients are averaged whole, as under ddp: only the optimizer state is split.
        EXPECT_GE(rank["gradients"].get<std::int64_t>(), adapter_bytes(zero, 4));
    }
    EXPECT_LT(adapter_difference(*single_, zero, 4), 1e-4);
    EXPECT_TRUE(fs::exists(zero / "checkpoints" / "step-4" / "optimizer.index.json"));
}

// torchrun's agent serves the store on MASTER_PORT before it starts the workers and tells them
// so (TORCHELASTIC_USE_AGENT_STORE); rank 0 must join it, not open a second server there.
TEST_F(EngineMultirank, RanksStartedAsTorchrunStartsThemJoinItsAgentsStore) {
    const fs::path run = two_ranks("torchrun", {{"plan", "ddp"}});
    const int port = test::free_port();
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(port);
    options.isServer = true;
    options.waitWorkers = false;
    c10::intrusive_ptr<c10d::TCPStore> agent;
    try {
        agent = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
    } catch (const std::exception& error) {
        ASSERT_TRUE(dist::mentions_libuv(error.what())) << error.what();
        dist::use_classic_tcp_server(options);
        agent = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
    }
    const std::int64_t keys_before = agent->getNumKeys();
    std::vector<std::vector<std::string>> environments;
    for (int rank = 0; rank < 2; ++rank) {
        environments.push_back(
            {"RANK=" + std::to_string(rank), "LOCAL_RANK=" + std::to_string(rank), "WORLD_SIZE=2",
             "LOCAL_WORLD_SIZE=2", "GROUP_RANK=0", "MASTER_ADDR=127.0.0.1",
             "MASTER_PORT=" + std::to_string(port), "TORCHELASTIC_USE_AGENT_STORE=True",
             "TORCHELASTIC_RESTART_COUNT=0"});
    }
    std::vector<int> exit_codes;
    const EngineRun ranks = run_workers(environments, {"train", "--job", job_of(run)}, exit_codes);
    EXPECT_EQ(exit_codes, (std::vector<int>{0, 0}));
    ASSERT_EQ(ranks.of("step").size(), 4u);
    EXPECT_EQ(ranks.of("step").back()["mem"].size(), 2u);
    ASSERT_EQ(ranks.of("done").size(), 1u);
    EXPECT_EQ(ranks.of("done").front()["status"], "finished");
    EXPECT_LT(adapter_difference(*single_, run, 4), 1e-4);
    // The workers met in the agent's store: their process group's keys are there.
    EXPECT_GT(agent->getNumKeys(), keys_before);
}

TEST_F(EngineMultirank, RanksStartedBySrunMeetAtTheFirstNodeOfTheJob) {
    const fs::path run = two_ranks("srun", {{"plan", "ddp"}});
    const int port = test::free_port();
    std::vector<std::vector<std::string>> environments;
    for (int rank = 0; rank < 2; ++rank) {
        environments.push_back({"SLURM_PROCID=" + std::to_string(rank),
                                "SLURM_LOCALID=" + std::to_string(rank), "SLURM_NTASKS=2",
                                "SLURM_NTASKS_PER_NODE=2", "SLURM_JOB_NODELIST=localhost",
                                "MASTER_PORT=" + std::to_string(port)});
    }
    std::vector<int> exit_codes;
    const EngineRun ranks = run_workers(environments, {"train", "--job", job_of(run)}, exit_codes);
    EXPECT_EQ(exit_codes, (std::vector<int>{0, 0}));
    ASSERT_EQ(ranks.of("step").size(), 4u);
    EXPECT_EQ(ranks.of("step").back()["mem"].size(), 2u);
    EXPECT_LT(adapter_difference(*single_, run, 4), 1e-4);
}

TEST_F(EngineMultirank, ATwoRankZeroTwoRunResumesOnOneRank) {
    json edits = kSteps;
    edits["max_steps"] = 2;
    edits["batch_size"] = 1;
    edits["parallel"] = {{"plan", "zero2"}};
    edits["checkpoints"] = {{"every_steps", 2}};
    const fs::path run = project_->prepared_run("zero2-then-one", edits);
    ASSERT_EQ(launch(run).exit_code, 0);
    // Continue to step 4 on one rank of batch 2: the same global batches.
    json job = json::parse(std::ifstream(job_of(run)));
    job["max_steps"] = 4;
    job["batch_size"] = 2;
    job["parallel"]["plan"] = "ddp";
    std::ofstream(job_of(run)) << job.dump();
    const EngineRun resumed = run_engine({"train", "--job", job_of(run)});
    ASSERT_EQ(resumed.exit_code, 0);
    ASSERT_FALSE(resumed.of("step").empty());
    EXPECT_EQ(resumed.of("step").front()["step"], 3);
    EXPECT_LT(adapter_difference(*single_, run, 4), 1e-4);
}

TEST_F(EngineMultirank, SequenceParallelTwoRanksEqualOneRank) {
    const fs::path hybrid = two_ranks("hybrid", {{"plan", "hybrid"}, {"sp_size", 2}}, 2);
    const EngineRun run = launch(hybrid);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    ASSERT_EQ(steps.size(), 4u);
    // Forward: the same loss; backward: the same adapter after four updates.
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_GT(steps[i]["comm"]["all_to_all"].get<int>(), 0);
        EXPECT_NEAR(steps[i]["loss"].get<double>(),
                    single_run_->of("step")[i]["loss"].get<double>(), 1e-4);
    }
    EXPECT_LT(adapter_difference(*single_, hybrid, 4), 1e-4);
}

// The tiny model's blocks: each all-reduces twice going forward (the attention's and the
// feed-forward's partial outputs) and twice going back (their inputs' gradients).
constexpr int kTinyBlocks = 2;

TEST_F(EngineMultirank, TensorParallelTwoRanksEqualOneRank) {
    const fs::path tp = two_ranks("tp2", {{"plan", "hybrid"}, {"tp_size", 2}}, 2);
    const EngineRun run = launch(tp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    ASSERT_EQ(steps.size(), 4u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_GE(steps[i]["comm"]["all_reduce"].get<int>(), 4 * kTinyBlocks);
        EXPECT_EQ(steps[i]["comm"]["all_to_all"].get<int>(), 0);
        EXPECT_NEAR(steps[i]["loss"].get<double>(),
                    single_run_->of("step")[i]["loss"].get<double>(), 1e-5);
    }
    // The checkpoint holds the whole adapter, joined from both ranks' parts.
    EXPECT_EQ(adapter_bytes(tp, 4), adapter_bytes(*single_, 4));
    EXPECT_LT(adapter_difference(*single_, tp, 4), 1e-5);
}

TEST_F(EngineMultirank, TensorAndDataParallelFourRanksEqualOneRankAndValidateTogether) {
    json edits = kSteps;
    edits["batch_size"] = 1;
    edits["parallel"] = {{"plan", "hybrid"}, {"tp_size", 2}};
    edits["validation"] = {{"every_steps", 4}, {"prompts", {"a red ball"}},
                           {"frames", 9},      {"steps", 2},
                           {"height", 64},     {"width", 64}};
    const fs::path run = project_->prepared_run("tp2-dp2", edits);
    const EngineRun ranks = launch(run, 4);
    ASSERT_EQ(ranks.exit_code, 0);
    const auto steps = ranks.of("step");
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_EQ(steps.back()["mem"].size(), 4u);
    EXPECT_LT(adapter_difference(*single_, run, 4), 1e-5);
    // Rank 0 and its tensor-parallel peer sampled together; rank 0 kept the one video.
    ASSERT_EQ(ranks.of("validation").size(), 1u);
    EXPECT_GT(fs::file_size(ranks.of("validation").front()["video"].get<std::string>()), 0u);
    for (const auto& entry : fs::directory_iterator(run / "validation")) {
        EXPECT_EQ(entry.path().filename().string().rfind(".rank-", 0), std::string::npos)
            << entry.path();
    }
}

// Steps 1-2 under one plan, 3-4 under another, against one rank doing all four.
TEST_F(EngineMultirank, CheckpointsResumeAcrossTensorParallelPlans) {
    auto half = [](const std::string& name, const json& parallel, int batch) {
        return first_half(*project_, kSteps, name, parallel, batch);
    };
    const json one_rank = {{"plan", "ddp"}};
    // Split over two ranks, then whole on one.
    const fs::path split_first = half("tp2-then-one", {{"plan", "hybrid"}, {"tp_size", 2}}, 2);
    ASSERT_EQ(launch(split_first).exit_code, 0);
    continue_with(split_first, one_rank, 2);
    const EngineRun whole = run_engine({"train", "--job", job_of(split_first)});
    ASSERT_EQ(whole.exit_code, 0);
    EXPECT_EQ(whole.of("step").front()["step"], 3);
    EXPECT_LT(adapter_difference(*single_, split_first, 4), 1e-5);
    // Whole on one rank, then split over tp2 x dp2 with the optimizer state sharded (ZeRO-1 as
    // the data-parallel axis).
    const fs::path whole_first = half("one-then-tp2-dp2", one_rank, 2);
    ASSERT_EQ(run_engine({"train", "--job", job_of(whole_first)}).exit_code, 0);
    continue_with(whole_first, {{"plan", "hybrid"}, {"tp_size", 2}, {"zero_stage", 1}}, 1);
    const EngineRun split = launch(whole_first, 4);
    ASSERT_EQ(split.exit_code, 0);
    EXPECT_EQ(split.of("step").front()["step"], 3);
    EXPECT_LT(adapter_difference(*single_, whole_first, 4), 1e-5);
}

// Two stages of one block each, the step's four batches as micro-batches on the 1F1B schedule:
// the same losses and adapter as one rank accumulating them, each stage holding half of it.
TEST_F(EngineMultirank, PipelineTwoStagesOfFourMicroBatchesEqualOneRank) {
    const fs::path& reference = accumulated();
    ASSERT_EQ(accumulated_run_->exit_code, 0);
    json edits = kAccumulated;
    edits["parallel"] = {{"plan", "hybrid"}, {"pp_size", 2}};
    const fs::path pp = project_->prepared_run("pp2", edits);
    const EngineRun run = launch(pp);
    ASSERT_EQ(run.exit_code, 0);
    const auto steps = run.of("step");
    const auto reference_steps = accumulated_run_->of("step");
    ASSERT_EQ(steps.size(), 4u);
    for (std::size_t i = 0; i < steps.size(); ++i) {
        EXPECT_NEAR(steps[i]["loss"].get<double>(), reference_steps[i]["loss"].get<double>(), 1e-5);
        // Rank 0, the first stage, sent each micro-batch's tokens, text and time embedding
        // forward and received their three gradients back; it averaged nothing with anyone.
        EXPECT_EQ(steps[i]["comm"]["send"], 12);
        EXPECT_EQ(steps[i]["comm"]["recv"], 12);
        EXPECT_EQ(steps[i]["comm"]["all_to_all"], 0);
        // Each stage steps its own block's adapter: half the state each.
        const auto& mem = steps[i]["mem"];
        ASSERT_EQ(mem.size(), 2u);
        const std::int64_t whole = reference_steps[i]["mem"][0]["optimizer_state"];
        EXPECT_EQ(mem[0]["optimizer_state"].get<std::int64_t>(), whole / 2);
        EXPECT_EQ(mem[1]["optimizer_state"].get<std::int64_t>(), whole / 2);
    }
    // The checkpoint holds both stages' halves.
    EXPECT_EQ(adapter_bytes(pp, 4), adapter_bytes(reference, 4));
    EXPECT_LT(adapter_difference(reference, pp, 4), 1e-5);
}

// pp2 x dp2 with the optimizer state sharded within each stage (ZeRO-1), validating with the
// whole model on rank 0.
TEST_F(EngineMultirank, PipelineAndDataParallelFourRanksEqualOneRankAndValidateWhole) {
    const fs::path& reference = accumulated();
    ASSERT_EQ(accumulated_run_->exit_code, 0);
    json edits = kAccumulated;
    edits["batch_size"] = 1;
    edits["parallel"] = {{"plan", "hybrid"}, {"pp_size", 2}, {"zero_stage", 1}};
    edits["validation"] = {{"every_steps", 4}, {"prompts", {"a red ball"}},
                           {"frames", 9},      {"steps", 2},
                           {"height", 64},     {"width", 64}};
    edits["checkpoints"] = {{"every_steps", 4}};
    const fs::path run = project_->prepared_run("pp2-dp2", edits);
    const EngineRun ranks = launch(run, 4);
    ASSERT_EQ(ranks.exit_code, 0);
    const auto steps = ranks.of("step");
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_EQ(steps.back()["mem"].size(), 4u);
    EXPECT_GT(steps.back()["comm"]["send"].get<int>(), 0);
    EXPECT_LT(adapter_difference(reference, run, 4), 1e-5);
    // Both stages' replicas wrote their optimizer shards.
    EXPECT_TRUE(
        fs::exists(run / "checkpoints" / "step-4" / "optimizer-stage-1-rank-1-of-2.safetensors"));
    ASSERT_EQ(ranks.of("validation").size(), 1u);
    EXPECT_GT(fs::file_size(ranks.of("validation").front()["video"].get<std::string>()), 0u);
}

// Steps 1-2 under one plan, 3-4 under another, against one rank doing all four.
TEST_F(EngineMultirank, CheckpointsResumeAcrossPipelinePlans) {
    const fs::path& reference = accumulated();
    ASSERT_EQ(accumulated_run_->exit_code, 0);
    auto half = [](const std::string& name, const json& parallel, int batch) {
        return first_half(*project_, kAccumulated, name, parallel, batch);
    };
    const json one_rank = {{"plan", "ddp"}};
    const fs::path staged_first = half("pp2-then-one", {{"plan", "hybrid"}, {"pp_size", 2}}, 2);
    ASSERT_EQ(launch(staged_first).exit_code, 0);
    continue_with(staged_first, one_rank, 2);
    const EngineRun whole = run_engine({"train", "--job", job_of(staged_first)});
    ASSERT_EQ(whole.exit_code, 0);
    EXPECT_EQ(whole.of("step").front()["step"], 3);
    EXPECT_LT(adapter_difference(reference, staged_first, 4), 1e-5);
    const fs::path whole_first = half("one-then-pp2-tp2", one_rank, 2);
    ASSERT_EQ(run_engine({"train", "--job", job_of(whole_first)}).exit_code, 0);
    // Into two stages whose blocks are split over two ranks each.
    continue_with(whole_first, {{"plan", "hybrid"}, {"pp_size", 2}, {"tp_size", 2}}, 2);
    const EngineRun staged = launch(whole_first, 4);
    ASSERT_EQ(staged.exit_code, 0);
    EXPECT_EQ(staged.of("step").front()["step"], 3);
    EXPECT_LT(adapter_difference(reference, whole_first, 4), 1e-5);
}

TEST_F(EngineMultirank, RankZeroValidatesAndAStopOnStdinStopsEveryRank) {
    json edits = kSteps;
    edits["max_steps"] = 100000;
    edits["batch_size"] = 2;
    edits["parallel"] = {{"plan", "hybrid"}, {"sp_size", 2}};
    edits["validation"] = {{"every_steps", 2}, {"prompts", {"a red ball"}},
                           {"frames", 9},      {"steps", 2},
                           {"height", 64},     {"width", 64}};
    const fs::path run = project_->prepared_run("stopped", edits);
    bool stop_sent = false;
    const EngineRun stopped =
        run_engine({"launch", "--cpu-ranks", "2", "--", "train", "--job", job_of(run)},
                   [&](test::ChildProcess& child, const json& event) {
                       if (event["type"] == "validation" && !stop_sent) {
                           child.write_line(R"({"v":1,"cmd":"stop"})");
                           stop_sent = true;
                       }
                       return true;
                   });
    ASSERT_TRUE(stop_sent);
    EXPECT_EQ(stopped.exit_code, 0);
    ASSERT_EQ(stopped.of("done").size(), 1u);
    EXPECT_EQ(stopped.of("done").front()["status"], "stopped");
    const std::int64_t last = stopped.of("step").back()["step"];
    EXPECT_LT(last, 100000);
    EXPECT_TRUE(fs::exists(run / "checkpoints" / ("step-" + std::to_string(last))));
    // Rank 0 sampled with the whole model; the video is a real file.
    const std::string video = stopped.of("validation").front()["video"];
    EXPECT_GT(fs::file_size(video), 0u);
    // Rank 0's memory events carry every rank, but for the stages of its own validation pass.
    int validation_stages = 0;
    for (const json& memory : stopped.of("memory")) {
        const bool stage = memory["phase"].get<std::string>().rfind("validation_", 0) == 0;
        validation_stages += stage;
        EXPECT_EQ(memory["mem"].size(), stage ? 1u : 2u) << memory.dump();
    }
    EXPECT_GE(validation_stages, 3); // text, denoise, decode
    // The run folder's log is the merged stream, written once: the train's one done (after
    // prepare's), steps in order.
    std::ifstream log(run / "events.jsonl");
    int dones = 0;
    std::int64_t previous = 0;
    for (std::string line; std::getline(log, line);) {
        const json event = json::parse(line);
        dones += event["type"] == "done" && event["status"] == "stopped";
        if (event["type"] == "step") {
            EXPECT_EQ(event["step"].get<std::int64_t>(), previous + 1);
            previous = event["step"];
        }
    }
    EXPECT_EQ(dones, 1);
    EXPECT_EQ(previous, last);
}

// Two machines on one: network namespaces joined by a veth pair, with addresses of their own
// (10.231.N.1 and .2, N from this process), removed again on destruction. Needs the right to
// make namespaces (root, or CAP_NET_ADMIN); without it ready() is false and why() says so.
class TwoHosts {
public:
    TwoHosts() {
        for (const char* candidate : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
            if (fs::exists(candidate)) {
                ip_ = candidate;
                break;
            }
        }
        if (ip_.empty()) {
            why_ = "iproute2's ip is not installed";
            return;
        }
        const std::string tag = std::to_string(::getpid());
        const std::string subnet = "10.231." + std::to_string(::getpid() % 250) + ".";
        for (int host = 0; host < 2; ++host) {
            names_[host] = "tfhost" + std::to_string(host) + "-" + tag;
            interfaces_[host] = "tfv" + std::to_string(host) + "-" + tag;
            addresses_[host] = subnet + std::to_string(host + 1);
        }
        ready_ =
            ip({"netns", "add", names_[0]}) && ip({"netns", "add", names_[1]}) &&
            ip({"link", "add", interfaces_[0], "type", "veth", "peer", "name", interfaces_[1]});
        for (int host = 0; ready_ && host < 2; ++host) {
            ready_ =
                ip({"link", "set", interfaces_[host], "netns", names_[host]}) &&
                in(host, {"addr", "add", addresses_[host] + "/24", "dev", interfaces_[host]}) &&
                in(host, {"link", "set", interfaces_[host], "up"}) &&
                in(host, {"link", "set", "lo", "up"});
        }
    }
    ~TwoHosts() {
        for (const std::string& name : names_) {
            if (!ip_.empty() && !name.empty()) {
                test::run_process({ip_, "netns", "del", name}, 30); // takes its veth end along
            }
        }
    }
    TwoHosts(const TwoHosts&) = delete;
    TwoHosts& operator=(const TwoHosts&) = delete;

    bool ready() const { return ready_; }
    const std::string& why() const { return why_; }
    const std::string& address(int host) const { return addresses_[host]; }
    // `argv` run on `host`, with Gloo bound to its veth end.
    std::vector<std::string> on(int host, const std::vector<std::string>& argv) const {
        std::vector<std::string> line = {ip_,
                                         "netns",
                                         "exec",
                                         names_[host],
                                         "/usr/bin/env",
                                         "GLOO_SOCKET_IFNAME=" + interfaces_[host],
                                         "OMP_NUM_THREADS=1"};
        line.insert(line.end(), argv.begin(), argv.end());
        return line;
    }

private:
    bool ip(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = {ip_};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return succeeds(argv);
    }
    // `ip arguments` inside `host`.
    bool in(int host, const std::vector<std::string>& arguments) {
        std::vector<std::string> line = {ip_, "netns", "exec", names_[host], ip_};
        line.insert(line.end(), arguments.begin(), arguments.end());
        return succeeds(line);
    }
    bool succeeds(const std::vector<std::string>& argv) {
        const test::ProcessResult result = test::run_process(argv, 30);
        if (result.exit_code != 0 && why_.empty()) {
            why_ = "cannot make network namespaces here (" + argv[1] + " " + argv[2] + ": " +
                   result.err + ")";
        }
        return result.exit_code == 0;
    }

    std::string ip_;
    std::array<std::string, 2> names_;
    std::array<std::string, 2> interfaces_;
    std::array<std::string, 2> addresses_;
    bool ready_ = false;
    std::string why_;
};

// Two machines, one CPU rank each, each started with `run` as a user starts every machine of a
// run: machine 1 first, which waits for machine 0 to prepare the dataset; together they train
// what one rank of batch 2 trains.
TEST_F(EngineMultirank, TwoMachinesAsNetworkNamespacesTrainAsOneRank) {
    const TwoHosts hosts;
    if (!hosts.ready()) {
        GTEST_SKIP() << hosts.why();
    }
    ASSERT_EQ(single_run_->exit_code, 0);
    const fs::path run = two_ranks("two-machines", {{"plan", "ddp"}});
    const std::string port = std::to_string(29400 + ::getpid() % 500);
    auto machine = [&](int rank) {
        return hosts.on(rank, {test::engine_path(), "run", "--job", job_of(run), "--cpu-ranks", "1",
                               "--nnodes", "2", "--node-rank", std::to_string(rank),
                               "--master-addr", hosts.address(0), "--master-port", port});
    };
    test::ChildProcess second(machine(1));
    bool waits = false;
    while (auto line = second.read_line(60)) {
        const json event = json::parse(*line);
        if (event["type"] == "log" && event["message"].get<std::string>().find(
                                          "Waiting for machine 0") != std::string::npos) {
            waits = true;
            break;
        }
    }
    ASSERT_TRUE(waits);
    test::ChildProcess first(machine(0));
    std::vector<json> events;
    while (auto line = first.read_line(300)) {
        events.push_back(json::parse(*line));
    }
    while (second.read_line(300)) {
    }
    EXPECT_EQ(first.wait(), 0);
    EXPECT_EQ(second.wait(), 0);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back()["type"], "done");
    EXPECT_EQ(events.back()["status"], "finished");
    EXPECT_LT(adapter_difference(*single_, run, 4), 1e-4);
    // Machine 0's word to the others ends with the training.
    EXPECT_FALSE(fs::exists(run / "nodes-ready.json"));
}

// Kills rank 1 of a two-rank `launch` of `parallel` at its first step: every rank stops within
// a minute and the launch fails naming the rank and the signal.
void expect_a_killed_rank_ends_the_launch(test::TrainingProject& project, const std::string& name,
                                          const json& parallel) {
    SCOPED_TRACE(name);
    json edits = kSteps;
    edits["max_steps"] = 100000;
    edits["batch_size"] = 1;
    edits["parallel"] = parallel;
    const fs::path run = project.prepared_run(name, edits);
    std::vector<std::string> argv = {
        test::engine_path(), "launch", "--cpu-ranks", "2", "--", "train", "--job", job_of(run)};
    test::ChildProcess child(argv);
    int rank1 = -1;
    std::vector<json> events;
    std::optional<std::chrono::steady_clock::time_point> killed_at;
    while (auto line = child.read_line(120)) {
        events.push_back(json::parse(*line));
        const json& event = events.back();
        if (event["type"] == "log" && event.contains("workers")) {
            rank1 = event["workers"][1]["pid"].get<int>();
        }
        if (event["type"] == "step" && !killed_at) {
            ASSERT_GT(rank1, 0);
            ::kill(rank1, SIGKILL);
            killed_at = std::chrono::steady_clock::now();
        }
    }
    const int exit_code = child.wait();
    ASSERT_TRUE(killed_at);
    EXPECT_NE(exit_code, 0);
    EXPECT_LT(std::chrono::steady_clock::now() - *killed_at, std::chrono::seconds(60));
    ASSERT_GE(events.size(), 2u);
    EXPECT_EQ(events.back()["type"], "done");
    EXPECT_EQ(events.back()["status"], "failed");
    const json& last = events[events.size() - 2];
    EXPECT_EQ(last["type"], "error");
    EXPECT_EQ(last["code"], "distributed");
    const std::string message = last["message"];
    EXPECT_NE(message.find("Rank 1"), std::string::npos) << message;
    EXPECT_NE(message.find("signal 9"), std::string::npos) << message;
    EXPECT_TRUE(fs::exists(run / "events.jsonl"));
}

TEST_F(EngineMultirank, KillingOneRankEndsTheLaunchWithAClearError) {
    expect_a_killed_rank_ends_the_launch(*project_, "killed-rank", {{"plan", "ddp"}});
    // Under tensor parallelism the survivor is inside a block's all-reduce, not the step's.
    expect_a_killed_rank_ends_the_launch(*project_, "killed-tp-rank",
                                         {{"plan", "hybrid"}, {"tp_size", 2}});
    // Under pipeline parallelism the survivor may be waiting for its peer's tokens.
    expect_a_killed_rank_ends_the_launch(*project_, "killed-pp-rank",
                                         {{"plan", "hybrid"}, {"pp_size", 2}});
}

} // namespace
} // namespace tuneframe
