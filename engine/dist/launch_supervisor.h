#pragma once

#include "engine/core/event_emitter.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tuneframe::dist {

struct LaunchOptions {
    std::vector<std::string> gpus; // CUDA device ids, one worker each
    int cpu_ranks = 0;             // or this many CPU workers
    int nnodes = 1;
    int node_rank = 0;
    std::string master_addr = "127.0.0.1";
    int master_port = 0;              // 0: a free port (one node only)
    std::string engine;               // the tuneframe-engine binary the workers run
    std::vector<std::string> command; // the workers' subcommand and its arguments
    double stop_grace_s = 5;          // SIGTERM to SIGKILL when a worker died
};

// `tuneframe-engine launch`: one worker per GPU (or CPU rank) with torchrun's variables, their
// events merged into one stream, the studio's commands passed on, and the whole run stopped
// when one worker fails.
//
// Rank 0 speaks for the run: its events pass through (its `step` events already carry every
// rank's memory, gathered by the trainer), its `done` is held back until every worker has
// exited well. Other ranks contribute their `log` and `error` events, tagged with "rank".
// Commands from stdin go to rank 0, which broadcasts them to the others at a step boundary;
// SIGTERM or SIGINT becomes a `stop` (a second one terminates the workers). When a worker
// exits with an error or a signal, the others are terminated (then killed after
// `stop_grace_s`) and the supervisor says which rank failed first and how.
class LaunchSupervisor {
public:
    LaunchSupervisor(LaunchOptions options, core::EventEmitter& events);
    // Runs the workers to the end; the process exit code.
    int run();

private:
    LaunchOptions options_;
    core::EventEmitter& events_;
};

// A TCP port that was free a moment ago on the loopback interface.
int free_local_port();

} // namespace tuneframe::dist
