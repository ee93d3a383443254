#include "tests/e2e/engine_test_project.h"

#include "common/dataset_manifest.h"
#include "common/training_job.h"
#include "engine/core/json_file.h"
#include "media/video_writer.h"

#include <gtest/gtest.h>

namespace tuneframe::test {

namespace fs = std::filesystem;
using nlohmann::json;

void write_moving_clip(const fs::path& path, int frames, int phase) {
    media::VideoWriter writer(path.string(), 64, 48);
    std::vector<std::uint8_t> rgb(64 * 48 * 3);
    for (int f = 0; f < frames; ++f) {
        for (int y = 0; y < 48; ++y) {
            for (int x = 0; x < 64; ++x) {
                const bool ball =
                    (x - 8 - 4 * f - phase) * (x - 8 - 4 * f - phase) + (y - 24) * (y - 24) < 64;
                std::uint8_t* pixel = &rgb[static_cast<std::size_t>(y * 64 + x) * 3];
                pixel[0] = ball ? 230 : static_cast<std::uint8_t>(20 + y * 2);
                pixel[1] = ball ? 40 : static_cast<std::uint8_t>(60 + phase * 10);
                pixel[2] = ball ? 40 : 160;
            }
        }
        writer.write(rgb.data());
    }
    writer.finish();
}

std::vector<json> EngineRun::of(const std::string& type) const {
    std::vector<json> found;
    for (const json& event : events) {
        if (event["type"] == type) {
            found.push_back(event);
        }
    }
    return found;
}

EngineRun run_engine(const std::vector<std::string>& arguments,
                     const std::function<bool(ChildProcess&, const json&)>& on_event) {
    std::vector<std::string> argv = {engine_path()};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ChildProcess child(argv);
    EngineRun run;
    while (auto line = child.read_line(300)) {
        run.events.push_back(json::parse(*line));
        if (on_event && !on_event(child, run.events.back())) {
            break;
        }
    }
    run.exit_code = child.wait();
    return run;
}

TrainingProject::TrainingProject()
    : folder_(directory_.path()) {
    fs::create_directories(folder_ / "clips");
    std::vector<common::ManifestEntry> entries;
    const char* captions[] = {"a red ball rolls right",   "a red ball rolls on blue",
                              "a ball crosses the frame", "a red ball moves fast",
                              "a small red ball",         "the red ball rolls by"};
    for (int i = 0; i < 6; ++i) {
        const std::string name = "clip" + std::to_string(i) + ".mp4";
        write_moving_clip(folder_ / "clips" / name, 9 + i, i);
        common::ManifestEntry entry;
        entry.path = "clips/" + name;
        entry.caption = captions[i];
        entries.push_back(entry);
    }
    std::string error;
    if (!common::write_manifest(folder_ / "data.jsonl", entries, &error)) {
        ADD_FAILURE() << error;
    }
}

fs::path TrainingProject::prepared_run(const std::string& name, const json& edits) {
    const fs::path run = new_run(name, edits);
    const EngineRun prepare = run_engine({"prepare", "--job", (run / "job.json").string()});
    EXPECT_EQ(prepare.exit_code, 0);
    return run;
}

fs::path TrainingProject::new_run(const std::string& name, const json& edits) {
    const fs::path run = folder_ / "runs" / name;
    fs::create_directories(run);
    json job = {{"model", tiny_pipeline().string()},
                {"dataset",
                 {{"manifest", (folder_ / "data.jsonl").string()},
                  {"cache_dir", (folder_ / "cache").string()},
                  {"resolution_buckets", {{48, 64}}},
                  {"frame_buckets", {9}}}},
                {"lora", {{"rank", 4}, {"alpha", 8}}},
                {"optimizer", {{"lr", 2e-3}}},
                {"precision", "fp32"},
                {"device", "cpu"},
                {"batch_size", 2},
                {"gradient_checkpointing", true},
                {"trigger_word", "tfdemo"},
                {"checkpoints", {{"every_steps", 2}, {"keep", 3}}}};
    job = common::merge_job_json(job, edits);
    common::TrainingJob::from_json(job, "test"); // the test's own job must be valid
    core::write_json_file(run / "job.json", job);
    return run;
}

} // namespace tuneframe::test
