// The job's limits from the command line (issue 39): what prepare or train would refuse later,
// `train --check` refuses first with the field; train says when the batch is larger than the
// samples; a job file is one JSON value; a NUL cuts no path; and a sweep re-run with another
// base job never resumes (and relabels) runs trained with the old one.
#include "common/training_job.h"
#include "engine/core/json_file.h"
#include "tests/e2e/engine_test_project.h"

#include <gtest/gtest.h>

#include <fstream>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::EngineRun;
using test::run_engine;

class EngineJobLimits : public ::testing::Test {
protected:
    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    static std::string job(const fs::path& run) { return test::job_of(run); }

    // The field of the one error the command ended with (its exit code must be 1).
    static std::string refused_field(const std::vector<std::string>& arguments,
                                     std::string* message = nullptr) {
        const EngineRun run = run_engine(arguments);
        EXPECT_EQ(run.exit_code, 1);
        if (run.of("error").size() != 1) {
            ADD_FAILURE() << "no single error event";
            return {};
        }
        const json error = run.of("error")[0];
        EXPECT_NE(error["code"], "internal") << error.dump();
        EXPECT_FALSE(error.value("hint", "").empty()) << error.dump();
        if (message) {
            *message = error["message"].get<std::string>();
        }
        return error.value("field", "");
    }

    static test::TrainingProject* project_;
};

test::TrainingProject* EngineJobLimits::project_ = nullptr;

TEST_F(EngineJobLimits, CheckRefusesWhatPrepareWouldRefuseLater) {
    // A device this machine does not have: no build sees 100 GPUs.
    const fs::path device = project_->new_run("check-device", {{"device", "cuda:99"}});
    EXPECT_EQ(refused_field({"train", "--check", "--job", job(device)}), "device");
    // fp16 has no CPU kernels.
    const fs::path half = project_->new_run("check-fp16", {{"precision", "fp16"}});
    std::string message;
    EXPECT_EQ(refused_field({"train", "--check", "--job", job(half)}, &message), "precision");
    EXPECT_NE(message.find("fp16"), std::string::npos) << message;
    // A manifest that is not there, or not named.
    const fs::path missing = project_->new_run(
        "check-manifest",
        {{"dataset", {{"manifest", (project_->folder() / "missing.jsonl").string()}}}});
    EXPECT_EQ(refused_field({"train", "--check", "--job", job(missing)}, &message),
              "dataset.manifest");
    EXPECT_NE(message.find("missing.jsonl"), std::string::npos) << message;
    const fs::path unnamed =
        project_->new_run("check-no-manifest", {{"dataset", {{"manifest", ""}}}});
    EXPECT_EQ(refused_field({"train", "--check", "--job", job(unnamed)}), "dataset.manifest");
    // Each refusal above is what prepare says about the same job.
    EXPECT_NE(run_engine({"prepare", "--job", job(half)}).exit_code, 0);
    EXPECT_NE(run_engine({"prepare", "--job", job(missing)}).exit_code, 0);
}

TEST_F(EngineJobLimits, EstimateAndCheckRefuseFieldsBeyondTheirLimits) {
    const std::vector<std::pair<json, std::string>> cases = {
        {{{"batch_size", std::int64_t{1} << 62}}, "batch_size"},
        {{{"max_steps", 9223372036854775808ull}}, "max_steps"},
        {{{"gradient_accumulation", std::int64_t{1} << 62}}, "gradient_accumulation"},
        {{{"validation", {{"prompts", {"a"}}, {"frames", 1000000001}}}}, "validation.frames"},
        {{{"validation", {{"prompts", {"a"}}, {"height", 65536}, {"width", 65536}}}},
         "validation.height"},
        {{{"validation", {{"prompts", std::vector<std::string>(20000, "a")}}}},
         "validation.prompts"},
        {{{"model", std::string(5000, 'm')}}, "model"},
        // 10 MB of path: the whole file is larger than a job can be (no field to name).
        {{{"model", std::string(10 << 20, 'm')}}, ""},
        {{{"dataset", {{"manifest", std::string("data.jsonl") + '\0' + ".txt"}}}},
         "dataset.manifest"},
    };
    const json valid = core::read_json_file(job(project_->new_run("limits", json::object())));
    const fs::path run = project_->folder() / "runs" / "limits" / "job.json";
    for (const auto& [edits, field] : cases) {
        core::write_json_file(run, common::merge_job_json(valid, edits));
        std::string message;
        EXPECT_EQ(refused_field({"estimate", "--job", run.string()}, &message), field) << message;
        EXPECT_NE(message.find(run.string()), std::string::npos) << message;
        EXPECT_EQ(refused_field({"train", "--check", "--job", run.string()}), field);
    }
    // null means nothing for max_steps (it used to mean 1000) or dataset.
    for (const char* field : {"max_steps", "dataset"}) {
        const fs::path run = project_->new_run("limits-null", json::object());
        json job_json = core::read_json_file(job(run));
        job_json[field] = nullptr;
        core::write_json_file(run / "job.json", job_json);
        EXPECT_EQ(refused_field({"estimate", "--job", job(run)}), field);
    }
}

TEST_F(EngineJobLimits, AJobFileIsOneJsonValueAndNothingAfterIt) {
    const fs::path run = project_->new_run("nul-after", {{"max_steps", 1}});
    const std::string text = core::read_json_file(job(run)).dump();
    std::ofstream(job(run), std::ios::binary | std::ios::trunc)
        << text << std::string(1, '\0') << "garbage";
    std::string message;
    refused_field({"estimate", "--job", job(run)}, &message);
    EXPECT_NE(message.find("NUL"), std::string::npos) << message;
    refused_field({"train", "--check", "--job", job(run)});
}

TEST_F(EngineJobLimits, APathCutByANulIsNotRead) {
    const fs::path manifest = project_->folder() / "nul.jsonl";
    std::ofstream(manifest) << R"({"v":1,"path":"clips/clip0.mp4\u0000.txt","caption":"a"})"
                            << "\n";
    const fs::path run =
        project_->new_run("nul-clip", {{"dataset", {{"manifest", manifest.string()}}}});
    std::string message;
    refused_field({"prepare", "--job", job(run)}, &message);
    EXPECT_NE(message.find("NUL"), std::string::npos) << message;
    EXPECT_NE(message.find("line 1"), std::string::npos) << message;
    EXPECT_FALSE(fs::exists(run / "prepared.jsonl"));
}

TEST_F(EngineJobLimits, TrainSaysWhenTheBatchIsLargerThanTheSamples) {
    // Six clips: a batch of seven would train batches of six without a word.
    const fs::path run = project_->prepared_run("big-batch", {{"batch_size", 7}, {"max_steps", 1}});
    std::string message;
    EXPECT_EQ(refused_field({"train", "--check", "--job", job(run)}, &message), "batch_size");
    EXPECT_NE(message.find("6 sample"), std::string::npos) << message;
    EXPECT_EQ(refused_field({"train", "--job", job(run)}), "batch_size");
    EXPECT_FALSE(fs::exists(run / "checkpoints" / "step-1"));
}

TEST_F(EngineJobLimits, ASweepReRunWithAnotherBaseJobNeverRelabelsItsRuns) {
    const fs::path base = project_->prepared_run("relabel-base", {{"max_steps", 1}});
    const fs::path grid = base / "grid.json";
    core::write_json_file(grid, {{"name", "relabel"}, {"axes", {{"lora.rank", {4}}}}});
    const fs::path out = base.parent_path() / "relabel-sweep";
    const std::vector<std::string> sweep = {"sweep",       "--job", job(base),   "--grid",
                                            grid.string(), "--out", out.string()};
    const EngineRun first = run_engine(sweep);
    ASSERT_EQ(first.exit_code, 0);
    const json runs = first.of("done").at(0)["summary"]["runs"];
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0]["status"], "finished");
    const fs::path folder = runs[0]["folder"].get<std::string>();
    ASSERT_TRUE(fs::exists(folder / "checkpoints" / "step-1"));

    // The base job's learning rate changes; the finished run was trained at the old one.
    json changed = core::read_json_file(job(base));
    changed["optimizer"]["lr"] = 0.05;
    core::write_json_file(job(base), changed);
    std::string message;
    EXPECT_EQ(refused_field(sweep, &message), "");
    EXPECT_NE(message.find("optimizer.lr"), std::string::npos) << message;
    EXPECT_NE(message.find(folder.string()), std::string::npos) << message;
    std::vector<std::string> plan = sweep;
    plan.push_back("--plan-only");
    refused_field(plan);
    // Nothing of the run was touched: its job still says what its checkpoint trained.
    EXPECT_DOUBLE_EQ(core::read_json_file(folder / "job.json")["optimizer"]["lr"].get<double>(),
                     2e-3);

    // Back to the job it trained, with more steps: the run resumes and goes on.
    changed["optimizer"]["lr"] = 2e-3;
    changed["max_steps"] = 2;
    core::write_json_file(job(base), changed);
    const EngineRun resumed = run_engine(sweep);
    ASSERT_EQ(resumed.exit_code, 0);
    EXPECT_EQ(resumed.of("done").at(0)["summary"]["runs"][0]["status"], "finished");
    EXPECT_TRUE(fs::exists(folder / "checkpoints" / "step-2"));
}

TEST_F(EngineJobLimits, SweepNamesAndValuesFitTheirFolders) {
    const fs::path base = project_->new_run("names-base", {{"max_steps", 1}});
    const fs::path grid = base / "grid.json";
    const fs::path out = base.parent_path() / "names-sweep";
    // A sweep name longer than a file name used to reach the file system as "File name too
    // long".
    core::write_json_file(grid,
                          {{"name", std::string(1000, 'n')}, {"axes", {{"optimizer.lr", {1e-3}}}}});
    EXPECT_EQ(refused_field({"sweep", "--job", job(base), "--grid", grid.string(), "--out",
                             out.string(), "--plan-only"}),
              "name");
    // A value as long as the job allows still makes a folder the file system takes.
    core::write_json_file(
        grid, {{"name", "long"}, {"axes", {{"trigger_word", {std::string(256, 'w'), "short"}}}}});
    const EngineRun planned = run_engine({"sweep", "--job", job(base), "--grid", grid.string(),
                                          "--out", out.string(), "--plan-only"});
    ASSERT_EQ(planned.exit_code, 0);
    const json runs = planned.of("done").at(0)["summary"]["runs"];
    ASSERT_EQ(runs.size(), 2u);
    for (const json& entry : runs) {
        const fs::path folder = entry["folder"].get<std::string>();
        EXPECT_LE(folder.filename().string().size(), 160u);
        EXPECT_TRUE(fs::exists(folder / "job.json"));
    }
    // Unknown fields and newer versions of the grid are refused.
    core::write_json_file(grid, {{"v", 2}, {"axes", {{"optimizer.lr", {1e-3}}}}});
    EXPECT_EQ(refused_field({"sweep", "--job", job(base), "--grid", grid.string(), "--out",
                             out.string(), "--plan-only"}),
              "v");
}

} // namespace
} // namespace tuneframe
