// `sweep --job FILE --grid FILE [--out DIR] [--plan-only]`: one run folder per combination of
// the grid, each trained in turn (prepare, then train) by this executable, all sharing the base
// job's latent cache. --plan-only writes the folders for a scheduler to run (srun, one each).
#include "common/sweep_grid.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/json_file.h"

#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string folder_name(const std::string& sweep, std::size_t index, const std::string& label) {
    std::string slug;
    for (const char c : sweep + "-" + std::to_string(index + 1) + "-" + label) {
        const auto u = static_cast<unsigned char>(c);
        slug += std::isalnum(u) || c == '.' ? static_cast<char>(std::tolower(u)) : '-';
    }
    return slug;
}

// Runs `<engine> command --job job` with stdout discarded (the run's events.jsonl has them);
// returns the exit code, or 128 + signal.
int run_engine(const std::string& command, const fs::path& job) {
    const std::string engine = own_executable();
    const std::string job_text = job.string();
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw core::Error(core::ErrorCode::Internal, "The sweep could not start an engine.",
                          "Check the process limit (ulimit -u) and free memory.");
    }
    if (pid == 0) {
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            ::dup2(null, STDIN_FILENO);
            ::dup2(null, STDOUT_FILENO);
        }
        std::vector<char*> argv = {const_cast<char*>(engine.c_str()),
                                   const_cast<char*>(command.c_str()), const_cast<char*>("--job"),
                                   const_cast<char*>(job_text.c_str()), nullptr};
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

int run_sweep(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path job_file = fs::absolute(arguments.required_option("--job"));
    const fs::path grid_file = fs::absolute(arguments.required_option("--grid"));
    const std::optional<std::string> out = arguments.option("--out");
    const bool plan_only = arguments.flag("--plan-only");
    arguments.finish();

    json base = core::read_json_file(job_file);
    const fs::path base_folder = job_file.parent_path();
    std::vector<common::SweepPoint> points;
    common::SweepGrid grid;
    try {
        grid = common::SweepGrid::from_json(core::read_json_file(grid_file), grid_file.string());
        points = grid.expand(base, job_file.string());
    } catch (const common::JobError& error) {
        throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint());
    }
    // Every run reads the base's model and manifest and shares its cache.
    const common::TrainingJob resolved = core::read_job_file(job_file);
    const fs::path cache = resolved.dataset.cache_dir.empty()
                               ? (base_folder / ".." / ".." / "cache").lexically_normal()
                               : core::job_relative_path(job_file, resolved.dataset.cache_dir);
    const fs::path runs = out ? fs::absolute(*out) : base_folder.parent_path();

    context.events.phase("sweep");
    json summary_runs = json::array();
    std::size_t failed = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const common::SweepPoint& point = points[i];
        const fs::path folder = runs / folder_name(grid.name, i, point.label);
        fs::create_directories(folder);
        json job = point.job.to_json();
        job["model"] = core::job_relative_path(job_file, resolved.model).string();
        job["dataset"]["manifest"] =
            core::job_relative_path(job_file, resolved.dataset.manifest).string();
        job["dataset"]["cache_dir"] = cache.string();
        core::write_json_file(folder / "job.json", job);
        json entry = {
            {"label", point.label}, {"folder", folder.string()}, {"overrides", point.overrides}};
        if (plan_only) {
            context.events.log("info", "sweep: " + point.label + " -> " + folder.string());
            summary_runs.push_back(entry);
            continue;
        }
        context.events.log("info", "sweep: run " + std::to_string(i + 1) + " of " +
                                       std::to_string(points.size()) + ", " + point.label);
        int code = run_engine("prepare", folder / "job.json");
        if (code == 0) {
            code = run_engine("train", folder / "job.json");
        }
        entry["exit_code"] = code;
        entry["status"] = code == 0 ? "finished" : "failed";
        if (code != 0) {
            ++failed;
            context.events.log("warning", "sweep: " + point.label + " failed (exit code " +
                                              std::to_string(code) + "); see " +
                                              (folder / "events.jsonl").string());
        }
        summary_runs.push_back(entry);
        context.events.progress(static_cast<std::int64_t>(i + 1),
                                static_cast<std::int64_t>(points.size()), "run");
    }
    context.events.done(failed == 0 ? "ok" : "failed",
                        {{"name", grid.name}, {"grid", grid.to_json()}, {"runs", summary_runs}});
    return failed == 0 ? 0 : 1;
}

} // namespace tuneframe::cli
