// `sweep --job FILE --grid FILE [--out DIR] [--plan-only]`: one run folder per combination of
// the grid, each trained in turn (prepare, then train) by this executable, all sharing the base
// job's latent cache. --plan-only writes the folders for a scheduler to run (srun, one each).
#include "common/sweep_grid.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/json_file.h"
#include "engine/train/trainer.h"
#include "engine/train/training_checkpoint.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Well under the file systems' 255 bytes a name, with room for what tools add beside it.
constexpr std::size_t kMaxFolderNameBytes = 160;

std::string fnv1a_hex(const std::string& text) {
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (const char c : text) {
        hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

// A label too long for a folder name (long string values) is cut and keeps a hash of the
// whole, so two runs never share a folder and a re-run finds its own again.
std::string folder_name(const std::string& sweep, std::size_t index, const std::string& label) {
    std::string slug;
    for (const char c : sweep + "-" + std::to_string(index + 1) + "-" + label) {
        const auto u = static_cast<unsigned char>(c);
        slug += std::isalnum(u) || c == '.' ? static_cast<char>(std::tolower(u)) : '-';
    }
    if (slug.size() > kMaxFolderNameBytes) {
        slug = slug.substr(0, kMaxFolderNameBytes - 17) + "-" + fnv1a_hex(slug);
    }
    return slug;
}

// Leaf fields of a job ("optimizer.lr" -> 0.002); lists count as one value.
void leaf_fields(const json& value, const std::string& path, std::map<std::string, json>& leaves) {
    if (!value.is_object()) {
        leaves[path] = value;
        return;
    }
    for (const auto& [key, child] : value.items()) {
        leaf_fields(child, path.empty() ? key : path + "." + key, leaves);
    }
}

std::string fingerprint_of(const json& job) {
    return train::job_fingerprint(common::TrainingJob::from_json(job, "job.json"));
}

json::json_pointer pointer_of(const std::string& field) {
    std::string pointer = "/" + field;
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    return json::json_pointer(pointer);
}

// "optimizer.lr 0.002, now 0.05": the fields `job` changes in `trained` that change what a
// step computes (those train::job_fingerprint covers).
std::string changed_fields(const json& trained, const json& job) {
    std::map<std::string, json> before;
    std::map<std::string, json> after;
    leaf_fields(trained, "", before);
    leaf_fields(job, "", after);
    std::map<std::string, json> fields = before;
    fields.insert(after.begin(), after.end());
    const std::string fingerprint = fingerprint_of(trained);
    std::string text;
    for (const auto& entry : fields) {
        const std::string& field = entry.first;
        const auto old = before.find(field);
        const auto now = after.find(field);
        if (old != before.end() && now != after.end() && old->second == now->second) {
            continue;
        }
        json changed = trained;
        const json::json_pointer pointer = pointer_of(field);
        if (now == after.end()) {
            changed[pointer.parent_pointer()].erase(pointer.back());
        } else {
            changed[pointer] = now->second;
        }
        bool matters = true;
        try {
            matters = fingerprint_of(changed) != fingerprint;
        } catch (const common::JobError&) {
        }
        if (matters) {
            text += (text.empty() ? "" : ", ") + field + " " +
                    (old == before.end() ? "unset" : old->second.dump()) + ", now " +
                    (now == after.end() ? "unset" : now->second.dump());
        }
    }
    return text;
}

// Why `folder` cannot take `job`: a checkpoint there was trained with a job that computes
// something else (another learning rate, rank, seed...), and resuming it would report the
// old numbers under the new job. Empty when the folder has no checkpoint of another job.
std::string checkpoints_of_another_job(const fs::path& folder, const json& job) {
    const std::string fingerprint = fingerprint_of(job);
    for (const fs::path& checkpoint : train::CheckpointStore(folder).list()) {
        train::TrainerState state;
        try {
            const fs::path file = checkpoint / "trainer_state.json";
            state = train::TrainerState::from_json(core::read_json_file(file), file.string());
        } catch (const core::Error&) {
            continue; // damaged: train sets it aside and resumes from an older one
        }
        if (state.job_fingerprint == fingerprint) {
            continue;
        }
        std::string fields;
        try {
            fields = changed_fields(core::read_json_file(checkpoint / "job.json"), job);
        } catch (const std::exception&) {
        }
        return "'" + checkpoint.string() + "' was trained with another job" +
               (fields.empty() ? std::string() : " (" + fields + ")");
    }
    return {};
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

    const json base = core::read_job_json(job_file);
    const fs::path base_folder = job_file.parent_path();
    std::vector<common::SweepPoint> points;
    common::SweepGrid grid;
    try {
        grid = common::SweepGrid::from_json(core::read_job_json(grid_file), grid_file.string());
        points = grid.expand(base, job_file.string());
    } catch (const common::JobError& error) {
        throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint())
            .with_field(error.field());
    }
    // Every run reads the base's model and manifest and shares its cache.
    const common::TrainingJob resolved = core::read_job_file(job_file);
    const fs::path cache = resolved.dataset.cache_dir.empty()
                               ? (base_folder / ".." / ".." / "cache").lexically_normal()
                               : core::job_relative_path(job_file, resolved.dataset.cache_dir);
    const fs::path runs = out ? fs::absolute(*out) : base_folder.parent_path();
    std::vector<fs::path> folders;
    std::vector<json> jobs;
    for (std::size_t i = 0; i < points.size(); ++i) {
        folders.push_back(runs / folder_name(grid.name, i, points[i].label));
        json job = points[i].job.to_json();
        job["model"] = core::job_relative_path(job_file, resolved.model).string();
        job["dataset"]["manifest"] =
            core::job_relative_path(job_file, resolved.dataset.manifest).string();
        job["dataset"]["cache_dir"] = cache.string();
        jobs.push_back(std::move(job));
    }
    // Before any folder is written: a run that already trained with another job keeps its
    // checkpoints and job.json as they are rather than being resumed under the new one.
    std::vector<std::string> conflicts;
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (std::string conflict = checkpoints_of_another_job(folders[i], jobs[i]);
            !conflict.empty()) {
            conflicts.push_back(std::move(conflict));
        }
    }
    if (!conflicts.empty()) {
        throw core::Error(
            core::ErrorCode::BadInput,
            "The sweep's runs in '" + runs.string() +
                "' were trained with another "
                "job, and would be resumed under this one: " +
                conflicts.front() +
                (conflicts.size() > 1
                     ? "; and " + std::to_string(conflicts.size() - 1) + " more run(s)"
                     : std::string()) +
                ".",
            "Sweep into another folder (--out DIR), or delete those runs' folders "
            "to train them again with this job.");
    }

    context.events.phase("sweep");
    json summary_runs = json::array();
    std::size_t failed = 0;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const common::SweepPoint& point = points[i];
        const fs::path& folder = folders[i];
        fs::create_directories(folder);
        core::write_json_file(folder / "job.json", jobs[i]);
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
