// A run's files end to end: two identical runs write the same validation videos, byte for byte,
// and a drive that fills during training stops the run with an `io` error that events.jsonl
// records, before its `done`, on a line of its own; with room again the run resumes.
#include "tests/e2e/engine_test_project.h"
#include "tests/support/full_disk.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <fstream>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::EngineRun;
using test::run_engine;

std::vector<std::string> lines_of(const fs::path& file) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    return lines;
}

json parsed(const std::string& line) {
    return json::parse(line, nullptr, false);
}

class EngineRunFiles : public ::testing::Test {
protected:
    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    static test::TrainingProject* project_;
};

test::TrainingProject* EngineRunFiles::project_ = nullptr;

// The videos of step 0 (the untrained adapter) and step 2 of two runs of one job on one machine.
TEST_F(EngineRunFiles, TwoIdenticalRunsWriteTheSameValidationVideos) {
    const json edits = {{"max_steps", 2},
                        {"validation",
                         {{"every_steps", 2},
                          {"at_start", true},
                          {"prompts", {"a red ball", "tfdemo a ball rolls"}},
                          {"steps", 2},
                          {"frames", 9},
                          {"height", 48},
                          {"width", 64}}}};
    std::vector<fs::path> runs;
    for (const char* name : {"same-a", "same-b"}) {
        runs.push_back(project_->prepared_run(name, edits));
        ASSERT_EQ(run_engine({"train", "--job", test::job_of(runs.back())}).exit_code, 0);
    }
    int compared = 0;
    for (const char* step : {"step-0", "step-2"}) {
        for (const char* video : {"0.mp4", "1.mp4"}) {
            const fs::path relative = fs::path("validation") / step / video;
            const std::string a = test::read_bytes(runs[0] / relative);
            const std::string b = test::read_bytes(runs[1] / relative);
            ASSERT_GT(a.size(), 1000u) << relative;
            EXPECT_TRUE(a == b) << relative << " differs between the two runs";
            ++compared;
        }
    }
    EXPECT_EQ(compared, 4);
}

// The run's own files fill its drive while it trains (events.jsonl and TensorBoard's grow each
// step): the run stops there, and events.jsonl ends with its `error` and `done`.
TEST_F(EngineRunFiles, ADriveThatFillsStopsTheRunWithItsErrorInTheLog) {
    const fs::path run = project_->folder() / "runs" / "full-drive";
    test::SmallDisk disk(run, 128 * 1024);
    if (!disk.mounted()) {
        GTEST_SKIP() << disk.why_not();
    }
    project_->prepared_run("full-drive",
                           {{"max_steps", 200}, {"checkpoints", {{"every_steps", 0}}}});
    const EngineRun stopped = run_engine({"train", "--job", test::job_of(run)});
    EXPECT_EQ(stopped.exit_code, 1);
    ASSERT_FALSE(stopped.of("error").empty());
    const json error = stopped.of("error").back();
    EXPECT_EQ(error["code"], "io") << error.dump();
    const std::string message = error["message"];
    EXPECT_NE(message.find(run.string()), std::string::npos) << message;
    EXPECT_NE(message.find("free on its drive"), std::string::npos) << message;
    ASSERT_FALSE(stopped.of("step").empty());
    EXPECT_LT(stopped.of("step").back()["step"].get<int>(), 200) << "the run went on";

    std::vector<std::string> lines = lines_of(run / "events.jsonl");
    ASSERT_GE(lines.size(), 2u);
    for (const std::string& line : lines) {
        EXPECT_TRUE(parsed(line).is_object()) << "not an event: " << line;
    }
    EXPECT_EQ(parsed(lines[lines.size() - 2]), error);
    EXPECT_EQ(parsed(lines.back())["status"], "failed");

    // With room again the run resumes, appending after the failed process's last line.
    ASSERT_TRUE(disk.resize(8 * 1024 * 1024));
    json job = json::parse(test::read_bytes(run / "job.json"));
    job["max_steps"] = 3;
    test::write_bytes(run / "job.json", job.dump());
    const EngineRun resumed = run_engine({"train", "--job", test::job_of(run)});
    ASSERT_EQ(resumed.exit_code, 0);
    const std::size_t before = lines.size();
    lines = lines_of(run / "events.jsonl");
    ASSERT_GT(lines.size(), before);
    for (const std::string& line : lines) {
        EXPECT_TRUE(parsed(line).is_object()) << "not an event: " << line;
    }
    EXPECT_EQ(parsed(lines[before])["type"], "phase");
    EXPECT_EQ(parsed(lines.back())["status"], "finished");
}

} // namespace
} // namespace tuneframe
