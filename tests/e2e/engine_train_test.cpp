// The training engine end to end as the studio drives it, on the tiny pipeline and clips made
// here: prepare -> train with validation -> stop by command and resume -> a run killed with
// SIGKILL resumes to the same adapter bits -> export in every format -> sample with the export.
#include "common/file_lock.h"
#include "common/run_queue.h"
#include "common/training_job.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "media/video_reader.h"
#include "tests/e2e/engine_test_project.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include <csignal>
#include <cstring>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::EngineRun;
using test::run_engine;

class EngineTrain : public ::testing::Test {
protected:
    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    static fs::path prepared_run(const std::string& name, const json& edits) {
        return project_->prepared_run(name, edits);
    }
    static std::string job(const fs::path& run) { return test::job_of(run); }

    static test::TrainingProject* project_;
};

test::TrainingProject* EngineTrain::project_ = nullptr;

TEST_F(EngineTrain, TrainsValidatesStopsResumesAndExports) {
    const fs::path run = prepared_run("main", {{"max_steps", 8},
                                               {"validation",
                                                {{"every_steps", 4},
                                                 {"prompts", {"tfdemo a red ball rolls"}},
                                                 {"frames", 9},
                                                 {"height", 32},
                                                 {"width", 48},
                                                 {"steps", 2}}}});
    // Stop once the third step is reported; the command is read between steps, so the run
    // stops after step 3 or, if step 4 had already begun, after step 4.
    const EngineRun first =
        run_engine({"train", "--job", job(run)}, [](test::ChildProcess& child, const json& event) {
            if (event["type"] == "step" && event["step"] == 3) {
                child.write_line(R"({"v":1,"cmd":"stop"})");
            }
            return true;
        });
    ASSERT_EQ(first.exit_code, 0);
    EXPECT_EQ(first.events.front()["type"], "hello");
    ASSERT_EQ(first.of("done").size(), 1u);
    EXPECT_EQ(first.of("done")[0]["status"], "stopped");
    const std::int64_t stopped_at = first.of("done")[0]["summary"]["steps"].get<std::int64_t>();
    EXPECT_TRUE(stopped_at == 3 || stopped_at == 4) << stopped_at;
    EXPECT_TRUE(fs::exists(run / "checkpoints" / ("step-" + std::to_string(stopped_at)) /
                           "trainer_state.json"));
    EXPECT_FALSE(fs::exists(run / "pid"));
    for (const json& step : first.of("step")) {
        EXPECT_TRUE(step["loss"].is_number());
        EXPECT_GT(step["tokens_per_s"].get<double>(), 0);
        EXPECT_GT(step["mem"][0]["total"].get<double>(), 0);
    }
    bool before_training = false;
    for (const json& memory : first.of("memory")) {
        before_training |= memory["phase"] == "before_training";
    }
    EXPECT_TRUE(before_training);

    const EngineRun second = run_engine({"train", "--job", job(run)});
    ASSERT_EQ(second.exit_code, 0);
    EXPECT_EQ(second.of("done")[0]["status"], "finished");
    ASSERT_EQ(static_cast<std::int64_t>(second.of("step").size()), 8 - stopped_at);
    EXPECT_EQ(second.of("step").front()["step"], stopped_at + 1);
    // Validation at steps 4 and 8, whichever run reached them.
    std::vector<json> validations = first.of("validation");
    for (const json& v : second.of("validation")) {
        validations.push_back(v);
    }
    ASSERT_EQ(validations.size(), 2u);
    EXPECT_EQ(validations.back()["step"], 8);
    const fs::path video = validations.back()["video"].get<std::string>();
    media::VideoReader reader(video.string());
    EXPECT_EQ(reader.frame_count(), 9);
#ifdef TUNEFRAME_HAVE_TENSORBOARD
    // One TensorBoard event file per process that trained (the first run and the resumed one).
    std::vector<fs::path> event_files;
    for (const auto& entry : fs::directory_iterator(run / "tensorboard")) {
        if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) {
            event_files.push_back(entry.path());
            EXPECT_GT(fs::file_size(entry.path()), 1000u) << entry.path();
        }
    }
    EXPECT_EQ(event_files.size(), 2u);
#endif

    for (const char* format : {"diffusers", "comfyui", "merged"}) {
        const fs::path out = project_->folder() / "exports" / format;
        const EngineRun exported = run_engine(
            {"export", "--run", run.string(), "--format", format, "--out", out.string()});
        ASSERT_EQ(exported.exit_code, 0) << format;
        const json summary = exported.of("done")[0]["summary"];
        EXPECT_EQ(summary["step"], 8) << format;
        EXPECT_LE(summary["verified_max_abs_diff"].get<double>(),
                  summary["tolerance"].get<double>());
    }
    const core::SafetensorsFile lora(project_->folder() / "exports" / "diffusers" /
                                     "pytorch_lora_weights.safetensors");
    const json meta = json::parse(lora.metadata().at("tuneframe"));
    EXPECT_EQ(meta["trigger_word"], "tfdemo");
    EXPECT_EQ(meta["alpha"], 8);

    const fs::path sampled = project_->folder() / "exports" / "sampled.mp4";
    const EngineRun sample = run_engine(
        {"sample", "--model", test::tiny_pipeline().string(), "--lora",
         (project_->folder() / "exports" / "diffusers" / "pytorch_lora_weights.safetensors")
             .string(),
         "--prompt", "tfdemo a red ball", "--frames", "9", "--height", "32", "--width", "48",
         "--steps", "2", "--out", sampled.string()});
    ASSERT_EQ(sample.exit_code, 0);
    EXPECT_EQ(media::VideoReader(sampled.string()).frame_count(), 9);
}

TEST_F(EngineTrain, ARunKilledMidwayResumesToTheSameAdapterBits) {
    const json edits = {{"max_steps", 6}, {"seed", 9}};
    const fs::path straight = prepared_run("straight", edits);
    ASSERT_EQ(run_engine({"train", "--job", job(straight)}).exit_code, 0);

    const fs::path killed = prepared_run("killed", edits);
    const EngineRun interrupted = run_engine(
        {"train", "--job", job(killed)}, [](test::ChildProcess& child, const json& event) {
            if (event["type"] == "step" && event["step"] == 5) {
                child.kill(SIGKILL);
                return false;
            }
            return true;
        });
    EXPECT_EQ(interrupted.exit_code, -1);
    EXPECT_FALSE(fs::exists(killed / "checkpoints" / "step-6"));
    const EngineRun resumed = run_engine({"train", "--job", job(killed)});
    ASSERT_EQ(resumed.exit_code, 0);
    // From the checkpoint at 2, or at 4 if step 4 finished before the kill landed.
    const auto first_step = resumed.of("step").front()["step"].get<std::int64_t>();
    EXPECT_TRUE(first_step == 3 || first_step == 5) << first_step;

    const core::SafetensorsFile a(straight / "checkpoints" / "step-6" / "trainable.safetensors");
    const core::SafetensorsFile b(killed / "checkpoints" / "step-6" / "trainable.safetensors");
    ASSERT_EQ(a.tensors().size(), b.tensors().size());
    for (const core::TensorInfo& tensor : a.tensors()) {
        const core::TensorInfo& other = b.at(tensor.name);
        ASSERT_EQ(tensor.nbytes(), other.nbytes());
        EXPECT_EQ(std::memcmp(a.data(tensor), b.data(other), tensor.nbytes()), 0) << tensor.name;
    }
}

TEST_F(EngineTrain, ImageToVideoTrainsOnTheFirstFrameLatents) {
    const fs::path run = prepared_run(
        "i2v", {{"model", test::tiny_i2v_pipeline().string()},
                {"task", "i2v"},
                {"max_steps", 2},
                {"dataset", {{"cache_dir", (project_->folder() / "cache-i2v").string()}}}});
    const EngineRun train = run_engine({"train", "--job", job(run)});
    ASSERT_EQ(train.exit_code, 0);
    ASSERT_EQ(train.of("step").size(), 2u);
    EXPECT_TRUE(std::isfinite(train.of("step").back()["loss"].get<double>()));
}

// What the studio starts: prepare, then the same process becomes train, so the pid it follows
// and the output it reads carry the run to its end with one `done`.
TEST_F(EngineTrain, RunPreparesThenTrainsInTheSameProcess) {
    const fs::path run = project_->new_run("whole", {{"max_steps", 2}});
    int child = 0;
    std::string pid_while_training;
    const EngineRun whole =
        run_engine({"run", "--job", job(run)}, [&](test::ChildProcess& process, const json& event) {
            child = process.pid();
            if (event["type"] == "step" && pid_while_training.empty()) {
                std::ifstream file(run / "pid");
                std::getline(file, pid_while_training);
            }
            return true;
        });
    ASSERT_EQ(whole.exit_code, 0);
    std::vector<std::string> phases;
    for (const json& phase : whole.of("phase")) {
        phases.push_back(phase["phase"].get<std::string>());
    }
    ASSERT_FALSE(phases.empty());
    EXPECT_EQ(phases.front(), "prepare");
    EXPECT_NE(std::find(phases.begin(), phases.end(), "train"), phases.end());
    EXPECT_EQ(whole.of("hello").size(), 2u); // prepare's image, then train's
    EXPECT_EQ(whole.of("step").size(), 2u);
    ASSERT_EQ(whole.of("done").size(), 1u);
    EXPECT_EQ(whole.of("done")[0]["status"], "finished");
    EXPECT_EQ(pid_while_training, std::to_string(child));
    EXPECT_TRUE(fs::exists(run / "prepared.jsonl"));
    // events.jsonl holds both parts, as the studio reattaching after a restart reads them (all
    // but the hello lines, which each image prints before it knows the run folder).
    std::ifstream log(run / "events.jsonl");
    std::string line;
    std::vector<json> logged;
    while (std::getline(log, line)) {
        logged.push_back(json::parse(line));
    }
    std::vector<json> printed;
    std::copy_if(whole.events.begin(), whole.events.end(), std::back_inserter(printed),
                 [](const json& event) { return event["type"] != "hello"; });
    EXPECT_EQ(logged, printed);
}

TEST_F(EngineTrain, RunRefusesTwoProcessPlansAtOnce) {
    const fs::path run = project_->new_run("both", {{"max_steps", 1}});
    const EngineRun both =
        run_engine({"run", "--job", job(run), "--gpus", "0,1", "--cpu-ranks", "2"});
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_FALSE(fs::exists(run / "prepared.jsonl")); // refused before anything ran
}

// A rank the model cannot take is refused before any clip is encoded, not after.
TEST_F(EngineTrain, RunRefusesARankTheModelCannotTakeBeforePreparing) {
    const fs::path run =
        project_->new_run("too-wide", {{"max_steps", 1}, {"lora", {{"rank", 64}}}});
    const EngineRun refused = run_engine({"run", "--job", job(run)});
    EXPECT_EQ(refused.exit_code, 1);
    ASSERT_EQ(refused.of("error").size(), 1u);
    EXPECT_EQ(refused.of("error")[0]["code"], "bad_input");
    EXPECT_NE(refused.of("error")[0]["hint"].get<std::string>().find("at most 32"),
              std::string::npos);
    EXPECT_EQ(refused.of("error")[0]["field"], "lora.rank");
    EXPECT_TRUE(refused.of("progress").empty());
    EXPECT_FALSE(fs::exists(run / "prepared.jsonl"));
}

// `train --check`: the job against its model, nothing written to the run folder; a refusal
// names the field the studio shows it beside.
TEST_F(EngineTrain, TrainCheckNamesTheRefusedFieldAndWritesNothing) {
    const fs::path good = project_->new_run("check-good", {{"max_steps", 1}});
    const EngineRun passed = run_engine({"train", "--job", job(good), "--check"});
    EXPECT_EQ(passed.exit_code, 0);
    ASSERT_EQ(passed.of("done").size(), 1u);
    EXPECT_EQ(passed.of("done")[0]["status"], "ok");
    EXPECT_EQ(passed.of("done")[0]["summary"]["checked"], job(good));
    EXPECT_FALSE(fs::exists(good / "events.jsonl"));
    EXPECT_FALSE(fs::exists(good / "pid"));

    // An image-to-video job on the text-to-video tiny model.
    const fs::path i2v = project_->new_run("check-i2v", {{"max_steps", 1}, {"task", "i2v"}});
    const EngineRun refused = run_engine({"train", "--job", job(i2v), "--check"});
    EXPECT_EQ(refused.exit_code, 1);
    ASSERT_EQ(refused.of("error").size(), 1u);
    EXPECT_EQ(refused.of("error")[0]["code"], "bad_input");
    EXPECT_EQ(refused.of("error")[0]["field"], "task");
    EXPECT_EQ(refused.of("done").at(0)["status"], "failed");
    EXPECT_FALSE(fs::exists(i2v / "events.jsonl"));

    // Validation videos the sampler cannot make, refused before training rather than at the
    // first validation.
    const fs::path frames = project_->new_run(
        "check-frames",
        {{"max_steps", 1}, {"validation", {{"prompts", {"a red ball"}}, {"frames", 13}}}});
    const EngineRun late = run_engine({"train", "--job", job(frames), "--check"});
    EXPECT_EQ(late.exit_code, 1);
    ASSERT_EQ(late.of("error").size(), 1u);
    EXPECT_EQ(late.of("error")[0]["field"], "validation.frames");
}

// The project's queue, run by the engine alone: what goes on after the studio is closed.
common::RunQueue read_queue(const fs::path& file) {
    return common::RunQueue::from_json(core::read_json_file(file), file.string());
}

fs::path write_queue(const fs::path& file, const std::vector<fs::path>& runs,
                     bool continue_past_failure = false) {
    common::RunQueue queue;
    queue.running = true;
    queue.continue_past_failure = continue_past_failure;
    std::int64_t id = 1;
    for (const fs::path& run : runs) {
        queue.runs.push_back({id++, run.string()});
    }
    core::write_json_file(file, queue.to_json());
    return file;
}

std::vector<std::string> log_messages(const EngineRun& run) {
    std::vector<std::string> messages;
    for (const json& log : run.of("log")) {
        messages.push_back(log["message"].get<std::string>());
    }
    return messages;
}

TEST_F(EngineTrain, QueueRunsItsRunsOneAfterAnotherWithoutAStudio) {
    const fs::path first = project_->new_run("queued-1", {{"max_steps", 1}});
    const fs::path second = project_->new_run("queued-2", {{"max_steps", 1}});
    const fs::path file = write_queue(project_->folder() / "queue-two.json", {first, second});
    const EngineRun runner = run_engine({"queue", "--file", file.string()});
    ASSERT_EQ(runner.exit_code, 0);
    ASSERT_EQ(runner.of("done").size(), 1u);
    EXPECT_EQ(runner.of("done")[0]["summary"]["started"], 2);
    EXPECT_EQ(runner.of("done")[0]["summary"]["failed"], 0);
    // One after the other: the second starts once the first has ended.
    const std::vector<std::string> messages = log_messages(runner);
    ASSERT_EQ(messages.size(), 4u);
    EXPECT_NE(messages[0].find(first.string()), std::string::npos) << messages[0];
    EXPECT_NE(messages[1].find(first.string() + " ended"), std::string::npos) << messages[1];
    EXPECT_NE(messages[2].find(second.string()), std::string::npos) << messages[2];
    for (const fs::path& run : {first, second}) {
        std::ifstream events(run / "events.jsonl");
        std::string line, last;
        while (std::getline(events, line)) {
            last = line;
        }
        const json done = json::parse(last);
        EXPECT_EQ(done["type"], "done") << run;
        EXPECT_EQ(done["status"], "finished") << run;
    }
    const common::RunQueue queue = read_queue(file);
    EXPECT_FALSE(queue.running); // emptied
    EXPECT_TRUE(queue.runs.empty());
    ASSERT_EQ(queue.started.size(), 2u);
    for (const common::StartedRun& run : queue.started) {
        EXPECT_GT(run.pid, 0);
        EXPECT_EQ(run.exit_code, 0);
    }
}

TEST_F(EngineTrain, QueueHoldsAfterAFailedRunUnlessItContinuesPastFailures) {
    const fs::path refused =
        project_->new_run("queued-refused", {{"max_steps", 1}, {"lora", {{"rank", 64}}}});
    const fs::path after = project_->new_run("queued-after", {{"max_steps", 1}});
    const fs::path held = write_queue(project_->folder() / "queue-held.json", {refused, after});
    const EngineRun holding = run_engine({"queue", "--file", held.string()});
    ASSERT_EQ(holding.exit_code, 0);
    EXPECT_EQ(holding.of("done")[0]["summary"]["failed"], 1);
    const common::RunQueue queue = read_queue(held);
    EXPECT_FALSE(queue.running);
    ASSERT_EQ(queue.runs.size(), 1u); // still waiting, for the user to look first
    EXPECT_EQ(queue.runs[0].folder, after.string());
    ASSERT_EQ(queue.started.size(), 1u);
    EXPECT_EQ(queue.started[0].exit_code, 1);
    EXPECT_FALSE(fs::exists(after / "events.jsonl"));

    const fs::path going_on =
        write_queue(project_->folder() / "queue-on.json", {refused, after}, true);
    const EngineRun continuing = run_engine({"queue", "--file", going_on.string()});
    EXPECT_EQ(continuing.of("done")[0]["summary"]["started"], 2);
    EXPECT_EQ(continuing.of("done")[0]["summary"]["failed"], 1);
    EXPECT_TRUE(read_queue(going_on).runs.empty());
}

TEST_F(EngineTrain, ASecondRunnerOfTheSameQueueLeavesItToTheFirst) {
    const fs::path run = project_->new_run("queued-once", {{"max_steps", 1}});
    const fs::path file = write_queue(project_->folder() / "queue-once.json", {run});
    const common::FileLock first(common::run_queue_runner_lock_path(file.string()),
                                 common::FileLock::Wait::DontBlock);
    ASSERT_TRUE(first.held());
    const EngineRun second = run_engine({"queue", "--file", file.string()});
    EXPECT_EQ(second.exit_code, 0);
    EXPECT_EQ(second.of("done")[0]["summary"]["already_running"], true);
    EXPECT_EQ(read_queue(file).runs.size(), 1u); // untouched
    EXPECT_FALSE(fs::exists(run / "events.jsonl"));
}

TEST_F(EngineTrain, AnUnpreparedRunSaysToRunPrepare) {
    const fs::path run = project_->folder() / "runs" / "unprepared";
    fs::create_directories(run);
    // A rank the tiny model takes, so that the check against the model passes first.
    core::write_json_file(run / "job.json",
                          {{"model", test::tiny_pipeline().string()}, {"lora", {{"rank", 4}}}});
    const EngineRun train = run_engine({"train", "--job", job(run)});
    EXPECT_EQ(train.exit_code, 1);
    ASSERT_EQ(train.of("error").size(), 1u);
    EXPECT_NE(train.of("error")[0]["hint"].get<std::string>().find("prepare"), std::string::npos);
}

} // namespace
TEST_F(EngineTrain, SweepTrainsEachCombinationOnTheSharedCache) {
    const fs::path base = prepared_run("sweep-base", {{"max_steps", 2}});
    const fs::path grid = base / "grid.json";
    core::write_json_file(grid, {{"name", "lrs"}, {"axes", {{"optimizer.lr", {1e-3, 1e-2}}}}});
    const fs::path out = base.parent_path() / "sweep";
    const EngineRun planned = run_engine({"sweep", "--job", job(base), "--grid", grid.string(),
                                          "--out", out.string(), "--plan-only"});
    ASSERT_EQ(planned.exit_code, 0);
    ASSERT_EQ(planned.of("done").at(0)["summary"]["runs"].size(), 2u);
    EXPECT_FALSE(fs::exists(out / "lrs-1-lr-1e-3" / "events.jsonl")); // only planned

    const EngineRun sweep =
        run_engine({"sweep", "--job", job(base), "--grid", grid.string(), "--out", out.string()});
    ASSERT_EQ(sweep.exit_code, 0);
    const json runs = sweep.of("done").at(0)["summary"]["runs"];
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0]["label"], "lr=1e-3");
    EXPECT_EQ(runs[1]["label"], "lr=0.01");
    std::vector<double> losses;
    for (const json& entry : runs) {
        EXPECT_EQ(entry["status"], "finished");
        const fs::path folder = entry["folder"].get<std::string>();
        const json job_json = core::read_json_file(folder / "job.json");
        // One cache for all: the base prepared it, the sweep's runs only find it.
        EXPECT_EQ(fs::path(job_json["dataset"]["cache_dir"].get<std::string>()),
                  fs::path(core::read_json_file(base / "job.json")["dataset"]["cache_dir"]
                               .get<std::string>()));
        std::vector<json> events;
        std::ifstream lines(folder / "events.jsonl");
        for (std::string line; std::getline(lines, line);) {
            events.push_back(json::parse(line));
        }
        std::vector<std::string> phases;
        for (const json& event : events) {
            if (event["type"] == "memory") {
                phases.push_back(event["phase"]);
            }
            if (event["type"] == "step" && event["step"] == 2) {
                losses.push_back(event["loss"]);
            }
        }
        EXPECT_EQ(phases, (std::vector<std::string>{"before_training", "after_testing"}));
    }
    ASSERT_EQ(losses.size(), 2u);
    EXPECT_NE(losses[0], losses[1]); // the learning rate took effect
}

} // namespace tuneframe
