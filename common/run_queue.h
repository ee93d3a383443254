#pragma once

// The project's queue of training runs, PROJECT/queue.json, shared by the studio (which edits
// it) and `tuneframe-engine queue` (the detached runner that executes it), so queued runs go
// on while no studio is open. Both change it only while holding its FileLock
// (common/file_lock.h), read-modify-write, and replace it atomically.
//
// {"v": 1, "running": true, "continue_past_failure": false,
//  "runs": [{"id": 12, "folder": "/p/runs/a"}, ...],      waiting, first runs next
//  "started": [{"id": 11, "folder": "/p/runs/b", "pid": 4242, "exit_code": 0}, ...]}
// `started` lists what the runner took from `runs` (pid 0 until its `run` process exists,
// exit_code once it ended) until the studio adopts the entry into its history and drops it.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::common {

struct QueuedRun {
    std::int64_t id = 0;
    std::string folder; // the run folder: job.json, and launch.json for several processes
};

struct StartedRun {
    std::int64_t id = 0;
    std::string folder;
    std::int64_t pid = 0;
    std::optional<int> exit_code;
};

struct RunQueue {
    bool running = false;
    bool continue_past_failure = false;
    std::vector<QueuedRun> runs;
    std::vector<StartedRun> started;

    // Throws JobError naming `origin` and the field when the file is not a queue.
    static RunQueue from_json(const nlohmann::json& json, const std::string& origin);
    nlohmann::json to_json() const;
    // The runner's entry for run `id`, if the studio has not adopted it yet.
    StartedRun* find_started(std::int64_t id);
};

// The lock file beside a queue file (FILE.lock), and the one a runner holds for its whole life
// (FILE.runner), so a second runner of the same queue knows to leave.
std::string run_queue_lock_path(const std::string& queue_file);
std::string run_queue_runner_lock_path(const std::string& queue_file);

} // namespace tuneframe::common
