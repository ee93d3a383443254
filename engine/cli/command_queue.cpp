// `queue --file PROJECT/queue.json`: the project's queue, run by the engine so that it goes on
// while no studio is open (ARCHITECTURE.md, "Runs without the window").
#include "common/file_lock.h"
#include "common/launch_spec.h"
#include "common/run_queue.h"
#include "common/training_job.h"
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

// Read-modify-write of the queue file under its lock, so the studio's edits and the runner's
// never overwrite each other. `change` returns what the caller wants from the queue it saw.
template <typename Result>
Result edit_queue(const std::string& file, const std::function<Result(common::RunQueue&)>& change) {
    const common::FileLock lock(common::run_queue_lock_path(file), common::FileLock::Wait::Block);
    if (!lock.held()) {
        throw core::Error(core::ErrorCode::Io, lock.error(),
                          "Check that the project folder exists and can be written.");
    }
    common::RunQueue queue;
    if (fs::exists(file)) {
        try {
            queue = common::RunQueue::from_json(core::read_json_file(file), file);
        } catch (const common::JobError& error) {
            throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint());
        }
    }
    Result result = change(queue);
    core::write_json_file(file, queue.to_json());
    return result;
}

// The processes a run trains in, from the launch.json the studio keeps beside its job.
std::vector<std::string> run_command_line(const fs::path& folder) {
    std::vector<std::string> line{own_executable(), "run", "--job", (folder / "job.json").string()};
    const fs::path plan = folder / common::LaunchSpec::kFileName;
    if (!fs::exists(plan)) {
        return line;
    }
    common::LaunchSpec spec;
    try {
        spec = common::LaunchSpec::from_json(core::read_json_file(plan));
    } catch (const common::JobError& error) {
        throw core::Error(core::ErrorCode::BadInput, plan.string() + ": " + error.what(),
                          error.hint());
    }
    // This is machine 0 of a run on several; the others were started by hand.
    if (spec.world_size() > 1) {
        const std::vector<std::string> processes = spec.process_arguments(0);
        line.insert(line.end(), processes.begin(), processes.end());
    }
    return line;
}

// Starts `run` for the folder as the studio does: its own session (a terminal's hang-up or the
// runner's end never reaches it), in the run folder, stderr appended to engine-stderr.log.
pid_t start_run(const fs::path& folder) {
    const std::vector<std::string> line = run_command_line(folder);
    std::vector<char*> argv;
    for (const std::string& part : line) {
        argv.push_back(const_cast<char*>(part.c_str()));
    }
    argv.push_back(nullptr);
    const std::string stderr_file = (folder / "engine-stderr.log").string();
    const pid_t pid = ::fork();
    if (pid < 0) {
        throw core::Error(core::ErrorCode::Internal,
                          std::string("Cannot start a queued run: fork failed: ") +
                              std::strerror(errno) + ".");
    }
    if (pid == 0) {
        ::setsid();
        const int null = ::open("/dev/null", O_RDWR);
        const int errors = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (::chdir(folder.c_str()) != 0 || null < 0 || errors < 0) {
            ::_exit(127);
        }
        ::dup2(null, STDIN_FILENO);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(errors, STDERR_FILENO);
        ::execv(argv.front(), argv.data());
        ::_exit(127);
    }
    return pid;
}

int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return -1;
        }
    }
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : -1;
}

} // namespace

// Takes the first waiting run while the queue runs, starts it, waits for its end and records
// it; a failed run holds the queue unless it continues past failures. Ends when the queue is
// held or empty. A second runner of the same file leaves at once.
int run_queue(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string file = fs::absolute(arguments.required_option("--file")).string();
    arguments.finish();
    const common::FileLock runner(common::run_queue_runner_lock_path(file),
                                  common::FileLock::Wait::DontBlock);
    if (!runner.held()) {
        if (!runner.error().empty()) {
            throw core::Error(core::ErrorCode::Io, runner.error(),
                              "Check that the project folder exists and can be written.");
        }
        context.events.log("info", "Another runner already works on " + file + ".");
        context.events.done("finished", {{"started", 0}, {"already_running", true}});
        return 0;
    }
    std::int64_t started = 0;
    std::int64_t failed = 0;
    while (true) {
        const std::optional<common::QueuedRun> next =
            edit_queue<std::optional<common::QueuedRun>>(file, [](common::RunQueue& queue) {
                if (queue.runs.empty()) {
                    queue.running = false;
                }
                if (!queue.running) {
                    return std::optional<common::QueuedRun>();
                }
                const common::QueuedRun run = queue.runs.front();
                queue.runs.erase(queue.runs.begin());
                queue.started.push_back({run.id, run.folder, 0, std::nullopt});
                return std::optional<common::QueuedRun>(run);
            });
        if (!next) {
            break;
        }
        int code = 127; // as a shell reports a command it could not start
        try {
            const pid_t pid = start_run(next->folder);
            edit_queue<bool>(file, [&](common::RunQueue& queue) {
                if (common::StartedRun* entry = queue.find_started(next->id)) {
                    entry->pid = pid;
                }
                return true;
            });
            ++started;
            context.events.log("info", "Started the queued run " + next->folder + " (process " +
                                           std::to_string(pid) + ").");
            code = wait_for(pid);
        } catch (const core::Error& error) {
            // A damaged launch.json fails this run, not the queue's runner.
            context.events.log("error", "Cannot start the queued run " + next->folder + ": " +
                                            error.what() +
                                            (error.hint().empty() ? "" : " " + error.hint()));
        } catch (const std::exception& error) {
            context.events.log("error",
                               "Cannot start the queued run " + next->folder + ": " + error.what());
        }
        failed += code != 0 ? 1 : 0;
        const bool held = edit_queue<bool>(file, [&](common::RunQueue& queue) {
            if (common::StartedRun* entry = queue.find_started(next->id)) {
                entry->exit_code = code;
            }
            if (code != 0 && !queue.continue_past_failure) {
                queue.running = false;
                return true;
            }
            return false;
        });
        context.events.log(
            code == 0 ? "info" : "warning",
            "The queued run " + next->folder +
                (code == 0 ? " ended." : " failed (exit code " + std::to_string(code) + ")") +
                (held ? "; the queue is held." : ""));
    }
    context.events.done("finished", {{"started", started}, {"failed", failed}});
    return 0;
}

} // namespace tuneframe::cli
