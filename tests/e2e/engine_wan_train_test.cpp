// The Wan family end to end on its tiny pipelines and clips made here, through the same engine
// commands as CogVideoX: prepare -> train with validation -> a SIGKILLed run resumes to the same
// adapter bits -> export in every format the family offers -> sample with each; image-to-video
// (Wan 2.1 with CLIP tokens, Wan 2.2 TI2V), and both experts of a Wan 2.2 A14B model, exported one
// file per expert and sampled with the pair.
#include "common/training_job.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "media/video_reader.h"
#include "tests/e2e/engine_test_project.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <set>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

using test::EngineRun;
using test::run_engine;

class EngineWanTrain : public ::testing::Test {
protected:
    static void SetUpTestSuite() { project_ = new test::TrainingProject; }
    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    // A run of the tiny Wan pipeline `arch` with its own latent cache (each family's VAE
    // makes its own latents).
    static fs::path prepared_run(const std::string& name, const std::string& arch, json edits) {
        const json wan = {{"model", test::tiny_wan_pipeline(arch).string()},
                          {"dataset", {{"cache_dir", (project_->folder() / arch).string()}}},
                          {"validation", {{"sampler", ""}}}};
        return project_->prepared_run(name, common::merge_job_json(wan, edits));
    }
    static std::string job(const fs::path& run) { return test::job_of(run); }

    static json validation(int every) {
        return {{"every_steps", every}, {"prompts", {"tfdemo a red ball rolls"}},
                {"frames", 9},          {"height", 32},
                {"width", 48},          {"steps", 2}};
    }

    static test::TrainingProject* project_;
};

test::TrainingProject* EngineWanTrain::project_ = nullptr;

void expect_same_tensors(const fs::path& a_file, const fs::path& b_file) {
    const core::SafetensorsFile a(a_file);
    const core::SafetensorsFile b(b_file);
    ASSERT_EQ(a.tensors().size(), b.tensors().size());
    for (const core::TensorInfo& tensor : a.tensors()) {
        const core::TensorInfo& other = b.at(tensor.name);
        ASSERT_EQ(tensor.nbytes(), other.nbytes());
        EXPECT_EQ(std::memcmp(a.data(tensor), b.data(other), tensor.nbytes()), 0) << tensor.name;
    }
}

TEST_F(EngineWanTrain, TextToVideoTrainsValidatesExportsAndSamplesInEveryFormat) {
    const fs::path run =
        prepared_run("t2v", "wan2.1-tiny", {{"max_steps", 4}, {"validation", validation(2)}});
    const EngineRun train = run_engine({"train", "--job", job(run)});
    ASSERT_EQ(train.exit_code, 0);
    ASSERT_EQ(train.of("step").size(), 4u);
    for (const json& step : train.of("step")) {
        EXPECT_TRUE(std::isfinite(step["loss"].get<double>())) << step.dump();
        EXPECT_GT(step["tokens_per_s"].get<double>(), 0);
    }
    const std::vector<json> validations = train.of("validation");
    ASSERT_EQ(validations.size(), 2u);
    media::VideoReader reader(validations.back()["video"].get<std::string>());
    EXPECT_EQ(reader.frame_count(), 9);

    const std::map<std::string, std::string> adapters = {
        {"diffusers", "pytorch_lora_weights.safetensors"},
        {"wan", "tuneframe_lora_wan.safetensors"},
        {"musubi", "tuneframe_lora_musubi.safetensors"}};
    for (const char* format : {"diffusers", "wan", "musubi", "merged", "pipeline"}) {
        const fs::path out = project_->folder() / "wan-exports" / format;
        const EngineRun exported = run_engine(
            {"export", "--run", run.string(), "--format", format, "--out", out.string()});
        ASSERT_EQ(exported.exit_code, 0) << format;
        const json summary = exported.of("done")[0]["summary"];
        EXPECT_EQ(summary["step"], 4) << format;
        EXPECT_LE(summary["verified_max_abs_diff"].get<double>(),
                  summary["tolerance"].get<double>())
            << format;
        std::vector<std::string> sample = {
            "sample",  "--prompt", "tfdemo a red ball", "--frames", "9", "--height", "32",
            "--width", "48",       "--steps",           "2"};
        if (adapters.count(format)) {
            sample.insert(sample.end(), {"--model", test::tiny_wan_pipeline("wan2.1-tiny").string(),
                                         "--lora", (out / adapters.at(format)).string()});
        } else if (std::string(format) == "merged") {
            sample.insert(sample.end(), {"--model", test::tiny_wan_pipeline("wan2.1-tiny").string(),
                                         "--transformer", out.string()});
        } else {
            sample.insert(sample.end(), {"--model", out.string()});
        }
        const fs::path video = out.parent_path() / (std::string(format) + ".mp4");
        sample.insert(sample.end(), {"--out", video.string()});
        ASSERT_EQ(run_engine(sample).exit_code, 0) << format;
        EXPECT_EQ(media::VideoReader(video.string()).frame_count(), 9) << format;
    }
    // A CogVideoX layout is not one Wan's tools load.
    const EngineRun comfy = run_engine({"export", "--run", run.string(), "--format", "comfyui",
                                        "--out", (project_->folder() / "wan-comfy").string()});
    EXPECT_NE(comfy.exit_code, 0);
    ASSERT_EQ(comfy.of("error").size(), 1u);
    EXPECT_NE(comfy.of("error")[0]["hint"].get<std::string>().find("musubi"), std::string::npos);
}

TEST_F(EngineWanTrain, ARunKilledMidwayResumesToTheSameAdapterBits) {
    const json edits = {{"max_steps", 5}, {"seed", 11}};
    const fs::path straight = prepared_run("straight", "wan2.1-tiny", edits);
    ASSERT_EQ(run_engine({"train", "--job", job(straight)}).exit_code, 0);

    const fs::path killed = prepared_run("killed", "wan2.1-tiny", edits);
    const EngineRun interrupted = run_engine(
        {"train", "--job", job(killed)}, [](test::ChildProcess& child, const json& event) {
            if (event["type"] == "step" && event["step"] == 3) {
                child.kill(SIGKILL);
                return false;
            }
            return true;
        });
    EXPECT_EQ(interrupted.exit_code, -1);
    ASSERT_EQ(run_engine({"train", "--job", job(killed)}).exit_code, 0);
    expect_same_tensors(straight / "checkpoints" / "step-5" / "trainable.safetensors",
                        killed / "checkpoints" / "step-5" / "trainable.safetensors");
}

TEST_F(EngineWanTrain, ImageToVideoTrainsOnTheConditionAndTheFirstFramesCLIPTokens) {
    json edits = {{"task", "i2v"}, {"max_steps", 2}, {"validation", validation(2)}};
    edits["validation"]["images"] = {(project_->folder() / "clips" / "clip0.mp4").string()};
    const fs::path run = prepared_run("i2v", "wan2.1-tiny-i2v", edits);
    // Every sample carries the condition's latents and the CLIP tokens of its first frame.
    std::ifstream prepared(run / "prepared.jsonl");
    int samples = 0;
    for (std::string line; std::getline(prepared, line);) {
        const json entry = json::parse(line);
        if (entry["kind"] == "sample") {
            ++samples;
            EXPECT_TRUE(entry.contains("image_latent")) << line;
            EXPECT_TRUE(entry.contains("image_embeds")) << line;
        }
    }
    EXPECT_EQ(samples, 6);
    const EngineRun train = run_engine({"train", "--job", job(run)});
    ASSERT_EQ(train.exit_code, 0);
    ASSERT_EQ(train.of("step").size(), 2u);
    EXPECT_TRUE(std::isfinite(train.of("step").back()["loss"].get<double>()));
    EXPECT_EQ(train.of("validation").size(), 1u);
}

TEST_F(EngineWanTrain, TextImageToVideoTrainsBothTasks) {
    for (const char* task : {"t2v", "i2v"}) {
        json edits = {{"task", task},
                      {"max_steps", 2},
                      {"dataset", {{"resolution_buckets", {{64, 64}}}}},
                      {"validation", validation(2)}};
        edits["validation"]["height"] = 64;
        edits["validation"]["width"] = 64;
        if (std::string(task) == "i2v") {
            edits["validation"]["images"] = {(project_->folder() / "clips" / "clip1.mp4").string()};
        }
        const fs::path run = prepared_run(std::string("ti2v-") + task, "wan2.2-tiny-ti2v", edits);
        const EngineRun train = run_engine({"train", "--job", job(run)});
        ASSERT_EQ(train.exit_code, 0) << task;
        ASSERT_EQ(train.of("step").size(), 2u) << task;
        EXPECT_TRUE(std::isfinite(train.of("step").back()["loss"].get<double>())) << task;
        ASSERT_EQ(train.of("validation").size(), 1u) << task;
    }
}

TEST_F(EngineWanTrain, TwoExpertsTrainTogetherOrOneAtATime) {
    const fs::path both =
        prepared_run("a14b", "wan2.2-tiny-a14b", {{"max_steps", 6}, {"validation", validation(6)}});
    const EngineRun train = run_engine({"train", "--job", job(both)});
    ASSERT_EQ(train.exit_code, 0);
    EXPECT_EQ(train.of("validation").size(), 1u);
    // Both experts' adapters are in the checkpoint, the second under its folder's name.
    const core::SafetensorsFile trained(both / "checkpoints" / "step-6" / "trainable.safetensors");
    std::set<bool> second;
    for (const core::TensorInfo& tensor : trained.tensors()) {
        second.insert(tensor.name.rfind("transformer_2.", 0) == 0);
    }
    EXPECT_EQ(second, (std::set<bool>{false, true}));

    const fs::path low =
        prepared_run("a14b-low", "wan2.2-tiny-a14b",
                     {{"max_steps", 2}, {"flow_matching", {{"expert", "low_noise"}}}});
    ASSERT_EQ(run_engine({"train", "--job", job(low)}).exit_code, 0);
    const core::SafetensorsFile low_trained(low / "checkpoints" / "step-2" /
                                            "trainable.safetensors");
    for (const core::TensorInfo& tensor : low_trained.tensors()) {
        EXPECT_EQ(tensor.name.rfind("transformer_2.", 0), 0u) << tensor.name;
    }
}

TEST_F(EngineWanTrain, AJobTheModelCannotTakeIsRefusedBeforePreparing) {
    // 9 frames are fine, 40 pixels are not a multiple of the 16 the VAE and patches need.
    const fs::path run =
        project_->new_run("odd", {{"model", test::tiny_wan_pipeline("wan2.2-tiny-ti2v").string()},
                                  {"dataset", {{"resolution_buckets", {{48, 64}}}}},
                                  {"validation", {{"sampler", "dpm"}}}});
    const EngineRun refused = run_engine({"train", "--check", "--job", job(run)});
    EXPECT_NE(refused.exit_code, 0);
    ASSERT_EQ(refused.of("error").size(), 1u);
    const std::string message = refused.of("error")[0]["message"].get<std::string>();
    EXPECT_NE(message.find("48"), std::string::npos) << message;
    EXPECT_NE(message.find("32"), std::string::npos) << message;
}

// A two-expert run exports one file per expert it trained, `<stem>_high_noise` and
// `<stem>_low_noise`, listed in the done event; `sample` takes the pair with --lora and
// --lora-2, the merged pair with --transformer and --transformer-2, the pipeline as it is.
TEST_F(EngineWanTrain, ATwoExpertRunExportsEachExpertAndSamplesWithThem) {
    const fs::path run = prepared_run("a14b-export", "wan2.2-tiny-a14b", {{"max_steps", 4}});
    ASSERT_EQ(run_engine({"train", "--job", job(run)}).exit_code, 0);
    const std::string base = test::tiny_wan_pipeline("wan2.2-tiny-a14b").string();
    const std::vector<std::string> sample = {
        "sample",  "--prompt", "tfdemo a red ball", "--frames", "9", "--height", "32",
        "--width", "48",       "--steps",           "2"};
    auto sample_with = [&](std::vector<std::string> extra, const std::string& name) {
        std::vector<std::string> arguments = sample;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        const fs::path video = project_->folder() / "a14b-exports" / (name + ".mp4");
        arguments.insert(arguments.end(), {"--out", video.string()});
        const EngineRun sampled = run_engine(arguments);
        EXPECT_EQ(sampled.exit_code, 0) << name;
        if (sampled.exit_code == 0) {
            EXPECT_EQ(media::VideoReader(video.string()).frame_count(), 9) << name;
        }
        return sampled;
    };

    for (const char* format : {"diffusers", "wan", "musubi"}) {
        const fs::path out = project_->folder() / "a14b-exports" / format;
        const EngineRun exported = run_engine(
            {"export", "--run", run.string(), "--format", format, "--out", out.string()});
        ASSERT_EQ(exported.exit_code, 0) << format;
        const json summary = exported.of("done")[0]["summary"];
        ASSERT_EQ(summary["files"].size(), 2u) << format;
        std::vector<std::string> files;
        for (const json& file : summary["files"]) {
            files.push_back(file["path"].get<std::string>());
            EXPECT_LE(file["verified_max_abs_diff"].get<double>(), file["tolerance"].get<double>())
                << format;
            EXPECT_TRUE(fs::is_regular_file(files.back())) << files.back();
        }
        EXPECT_EQ(summary["files"][0]["expert"], "high_noise");
        EXPECT_EQ(summary["files"][1]["expert"], "low_noise");
        EXPECT_NE(files[0].find("_high_noise.safetensors"), std::string::npos) << files[0];
        EXPECT_NE(files[1].find("_low_noise.safetensors"), std::string::npos) << files[1];
        EXPECT_EQ(summary["path"], files[0]);
        const EngineRun sampled =
            sample_with({"--model", base, "--lora", files[0], "--lora-2", files[1]}, format);
        if (!sampled.of("done").empty()) {
            EXPECT_EQ(sampled.of("done")[0]["summary"]["lora_2"], files[1]);
        }
    }

    const fs::path merged = project_->folder() / "a14b-exports" / "merged";
    ASSERT_EQ(run_engine(
                  {"export", "--run", run.string(), "--format", "merged", "--out", merged.string()})
                  .exit_code,
              0);
    sample_with({"--model", base, "--transformer", (merged / "transformer").string(),
                 "--transformer-2", (merged / "transformer_2").string()},
                "merged");
    const fs::path pipeline = project_->folder() / "a14b-exports" / "pipeline";
    const EngineRun whole = run_engine(
        {"export", "--run", run.string(), "--format", "pipeline", "--out", pipeline.string()});
    ASSERT_EQ(whole.exit_code, 0);
    EXPECT_EQ(whole.of("done")[0]["summary"]["files"].size(), 2u);
    sample_with({"--model", pipeline.string()}, "pipeline");
}

// A run of one expert writes that expert's file alone; export refuses the other, and sample
// refuses --lora-2 for a one-transformer model.
TEST_F(EngineWanTrain, ARunOfOneExpertExportsItAloneAndRefusesTheOther) {
    const fs::path run =
        prepared_run("a14b-high", "wan2.2-tiny-a14b",
                     {{"max_steps", 2}, {"flow_matching", {{"expert", "high_noise"}}}});
    ASSERT_EQ(run_engine({"train", "--job", job(run)}).exit_code, 0);
    const fs::path out = project_->folder() / "a14b-high-export";
    const EngineRun refused = run_engine({"export", "--run", run.string(), "--format", "wan",
                                          "--expert", "low_noise", "--out", out.string()});
    EXPECT_NE(refused.exit_code, 0);
    ASSERT_EQ(refused.of("error").size(), 1u);
    EXPECT_EQ(refused.of("error")[0]["code"], "bad_input");
    EXPECT_NE(refused.of("error")[0]["message"].get<std::string>().find("high-noise expert only"),
              std::string::npos)
        << refused.of("error")[0].dump();
    EXPECT_FALSE(fs::exists(out));

    const EngineRun exported =
        run_engine({"export", "--run", run.string(), "--format", "wan", "--out", out.string()});
    ASSERT_EQ(exported.exit_code, 0);
    const json files = exported.of("done")[0]["summary"]["files"];
    ASSERT_EQ(files.size(), 1u);
    EXPECT_EQ(files[0]["path"], (out / "tuneframe_lora_wan_high_noise.safetensors").string());
    EXPECT_EQ(files[0]["expert"], "high_noise");

    const EngineRun one_transformer =
        run_engine({"sample", "--model", test::tiny_wan_pipeline("wan2.1-tiny").string(),
                    "--prompt", "a ball", "--frames", "5", "--height", "32", "--width", "32",
                    "--steps", "1", "--lora-2", files[0]["path"].get<std::string>(), "--out",
                    (project_->folder() / "refused.mp4").string()});
    EXPECT_NE(one_transformer.exit_code, 0);
    ASSERT_EQ(one_transformer.of("error").size(), 1u);
    EXPECT_NE(one_transformer.of("error")[0]["message"].get<std::string>().find("--lora-2"),
              std::string::npos);
}

} // namespace
} // namespace tuneframe
