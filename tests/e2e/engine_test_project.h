#pragma once

#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tuneframe::test {

// A 64x48 clip of a red ball rolling right, `phase` pixels ahead, encoded with FFmpeg.
void write_moving_clip(const std::filesystem::path& path, int frames, int phase);

// Parsed events of one engine run.
struct EngineRun {
    int exit_code = -1;
    std::vector<nlohmann::json> events;

    std::vector<nlohmann::json> of(const std::string& type) const;
};

// Runs the engine; `on_event` may act on the child (send a command, kill it) and returns false
// to stop reading.
EngineRun
run_engine(const std::vector<std::string>& arguments,
           const std::function<bool(ChildProcess&, const nlohmann::json&)>& on_event = {});

// Six captioned clips and their manifest in a temporary folder, and prepared runs over them
// on the tiny pipeline (fp32, CPU, LoRA rank 4, batch 2, one shared latent cache).
class TrainingProject {
public:
    TrainingProject();

    // runs/<name>/job.json with `edits` merged in, prepared.
    std::filesystem::path prepared_run(const std::string& name, const nlohmann::json& edits);
    // The same job, not prepared.
    std::filesystem::path new_run(const std::string& name, const nlohmann::json& edits);
    const std::filesystem::path& folder() const { return folder_; }

private:
    TemporaryDirectory directory_;
    std::filesystem::path folder_;
};

inline std::string job_of(const std::filesystem::path& run) {
    return (run / "job.json").string();
}

} // namespace tuneframe::test
