// What a run finds after a kill or a broken disk: leftover folders are cleared, a prune cut
// short never leaves a half checkpoint, a damaged newest checkpoint gives way to the previous
// one, an interrupted validation runs again, and a finished run says so.
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/train/checkpoint_recovery.h"
#include "engine/train/training_checkpoint.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <csignal>
#include <fstream>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

constexpr int kFilesPerCheckpoint = 400;

void touch(const fs::path& file, const std::string& text = "x") {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// A step-N folder as list() sees one, with many files so that deleting it takes a while.
void fake_checkpoint(const fs::path& checkpoints, std::int64_t step) {
    const fs::path folder = checkpoints / ("step-" + std::to_string(step));
    for (int i = 0; i < kFilesPerCheckpoint; ++i) {
        touch(folder / ("part-" + std::to_string(i)));
    }
    touch(folder / "trainer_state.json", "{}");
}

bool is_whole(const fs::path& folder) {
    for (int i = 0; i < kFilesPerCheckpoint; ++i) {
        if (!fs::exists(folder / ("part-" + std::to_string(i)))) {
            return false;
        }
    }
    return fs::exists(folder / "trainer_state.json");
}

// The PID of a process that has ended.
pid_t ended_process() {
    const pid_t child = ::fork();
    if (child == 0) {
        ::_exit(0);
    }
    ::waitpid(child, nullptr, 0);
    return child;
}

std::vector<std::string> names_in(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

TEST(CheckpointStore, DebrisOfEndedProcessesIsRemovedAndEverythingElseKept) {
    test::TemporaryDirectory dir;
    const CheckpointStore store(dir / "run");
    const fs::path checkpoints = store.folder();
    fake_checkpoint(checkpoints, 2);
    const std::string dead = std::to_string(ended_process());
    touch(checkpoints / (".step-4.tmp-" + dead) / "trainable.safetensors");
    touch(checkpoints / (".step-1.pruning-" + dead) / "optimizer.safetensors");
    touch(checkpoints / ".step-4.shards" / "optimizer-rank-1-of-2.safetensors");
    touch(checkpoints / "step-3" / "trainable.safetensors"); // its state was deleted first
    fs::create_directories(checkpoints / "step-5");          // emptied by a kill mid-prune
    // The parent of this test is alive: its checkpoint in progress is not debris.
    touch(checkpoints / (".step-6.tmp-" + std::to_string(::getppid())) / "job.json");
    touch(checkpoints / "step-7.damaged" / "trainer_state.json");

    const std::vector<fs::path> removed = store.remove_debris();
    EXPECT_EQ(removed.size(), 5u);
    EXPECT_EQ(names_in(checkpoints),
              (std::vector<std::string>{".step-6.tmp-" + std::to_string(::getppid()), "step-2",
                                        "step-7.damaged"}));
    EXPECT_TRUE(is_whole(checkpoints / "step-2"));
}

// A kill at any moment of a prune leaves every step-N folder whole or gone; what it leaves
// behind is debris the next start removes.
TEST(CheckpointStore, AKilledPruneNeverLeavesAHalfDeletedCheckpoint) {
    test::TemporaryDirectory dir;
    const CheckpointStore store(dir / "run");
    std::mt19937 random(7);
    int interrupted = 0;
    for (int trial = 0; trial < 12; ++trial) {
        for (std::int64_t step = 1; step <= 3; ++step) {
            if (!fs::exists(store.folder() / ("step-" + std::to_string(step)))) {
                fake_checkpoint(store.folder(), step);
            }
        }
        const pid_t child = ::fork();
        if (child == 0) {
            store.prune(1);
            ::_exit(0);
        }
        ::usleep(std::uniform_int_distribution<useconds_t>(0, 4000)(random));
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        interrupted += WIFSIGNALED(status) ? 1 : 0;
        for (const fs::path& listed : store.list()) {
            EXPECT_TRUE(is_whole(listed)) << listed << " in trial " << trial;
        }
        EXPECT_TRUE(is_whole(store.folder() / "step-3")) << "the newest is never pruned";
        store.remove_debris();
        for (const std::string& name : names_in(store.folder())) {
            EXPECT_EQ(name.rfind("step-", 0), 0u) << name << " left after remove_debris";
        }
    }
    EXPECT_GT(interrupted, 0) << "no prune was interrupted: the test proved nothing";
}

void cut_short(const fs::path& file) {
    fs::resize_file(file, fs::file_size(file) / 2);
}

TEST(Trainer, ADamagedNewestCheckpointGivesWayToThePreviousOneWithAWarning) {
    test::TemporaryDirectory dir;
    const TrainResult straight =
        test_support::run_trainer(test_support::small_job(6, 1e-3), dir / "straight");
    test_support::run_trainer(test_support::small_job(4, 1e-3), dir / "run");
    cut_short(dir / "run" / "checkpoints" / "step-4" / "trainable.safetensors");

    const TrainResult resumed =
        test_support::run_trainer(test_support::small_job(6, 1e-3), dir / "run");
    EXPECT_EQ(resumed.steps, 6);
    EXPECT_TRUE(
        fs::exists(dir / "run" / "checkpoints" / "step-4.damaged" / "trainable.safetensors"));
    bool warned = false;
    for (const auto& event : test_support::read_events(dir / "run" / "events.jsonl")) {
        if (event["type"] == "log" && event["level"] == "warning") {
            const std::string message = event["message"];
            warned |= message.find("step-4 cannot be read") != std::string::npos &&
                      message.find("resumes from step-2") != std::string::npos;
        }
    }
    EXPECT_TRUE(warned);
    // Resumed from step 2, the run ends exactly where the uninterrupted one did.
    const auto a = core::read_tensors(straight.last_checkpoint / "trainable.safetensors");
    const auto b = core::read_tensors(resumed.last_checkpoint / "trainable.safetensors");
    for (const auto& [name, tensor] : a) {
        EXPECT_TRUE(tensor.equal(b.at(name))) << name;
    }
}

TEST(Trainer, WhenNoCheckpointCanBeReadTheRunStopsAndListsThem) {
    test::TemporaryDirectory dir;
    test_support::run_trainer(test_support::small_job(4, 1e-3), dir / "run");
    cut_short(dir / "run" / "checkpoints" / "step-4" / "trainable.safetensors");
    fs::remove(dir / "run" / "checkpoints" / "step-2" / "optimizer.safetensors");
    try {
        test_support::run_trainer(test_support::small_job(6, 1e-3), dir / "run");
        FAIL() << "expected the run to refuse to start over silently";
    } catch (const core::Error& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find("step-4: "), std::string::npos) << message;
        EXPECT_NE(message.find("step-2: "), std::string::npos) << message;
        EXPECT_NE(error.hint().find("start the run over"), std::string::npos) << error.hint();
    }
    // Nothing was moved or deleted.
    EXPECT_TRUE(fs::exists(dir / "run" / "checkpoints" / "step-4" / "trainable.safetensors"));
}

TEST(Trainer, AValidationInterruptedByAKillRunsAgainOnResume) {
    test::TemporaryDirectory dir;
    nlohmann::json json = test_support::small_job(2, 1e-3).to_json();
    json["validation"] = {{"every_steps", 2}, {"prompts", {"a red ball"}},
                          {"steps", 2},       {"frames", 9},
                          {"height", 32},     {"width", 48}};
    const fs::path run = dir / "run";
    test_support::run_trainer(common::TrainingJob::from_json(json, "job"), run);
    const fs::path step_2 = run / "validation" / "step-2";
    ASSERT_TRUE(fs::exists(step_2 / "validation.json"));
    // What a kill while the video was being written leaves: a checkpoint at step 2, no index.
    fs::remove(step_2 / "validation.json");
    fs::remove(step_2 / "0.mp4");

    json["max_steps"] = 3;
    test_support::run_trainer(common::TrainingJob::from_json(json, "job"), run);
    EXPECT_TRUE(fs::exists(step_2 / "validation.json"));
    EXPECT_GT(fs::file_size(step_2 / "0.mp4"), 0u);
    bool said = false;
    for (const auto& event : test_support::read_events(run / "events.jsonl")) {
        said |= event["type"] == "log" &&
                event["message"].get<std::string>().find("validation at step 2 was interrupted") !=
                    std::string::npos;
    }
    EXPECT_TRUE(said);
}

TEST(Trainer, TrainingAFinishedRunSaysSoAndReportsItsLastLoss) {
    test::TemporaryDirectory dir;
    const TrainResult first =
        test_support::run_trainer(test_support::small_job(2, 1e-3), dir / "run");
    const TrainResult again =
        test_support::run_trainer(test_support::small_job(2, 1e-3), dir / "run");
    EXPECT_EQ(again.status, "finished");
    EXPECT_EQ(again.steps, 2);
    EXPECT_EQ(again.last_loss, first.last_loss);
    EXPECT_GT(again.last_loss, 0.0);
    EXPECT_EQ(again.last_checkpoint, first.last_checkpoint);
    const auto events = test_support::read_events(dir / "run" / "events.jsonl");
    EXPECT_EQ(events.back()["type"], "memory");
    bool said = false;
    for (const auto& event : events) {
        said |= event["type"] == "log" &&
                event["message"].get<std::string>().find("The run has already finished: step 2 "
                                                         "of 2") != std::string::npos;
    }
    EXPECT_TRUE(said);
}

} // namespace
} // namespace tuneframe::train
