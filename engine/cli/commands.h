#pragma once

#include "engine/cli/arguments.h"
#include "engine/core/event_emitter.h"

#include <string>

namespace tuneframe::cli {

// What every subcommand gets: its arguments and the event stream on stdout.
struct CommandContext {
    Arguments& arguments;
    core::EventEmitter& events;
};

struct Command {
    const char* name;
    const char* usage;
    const char* summary;
    bool speaks_protocol; // emits JSON Lines events (hello first) rather than text for people
    int (*run)(CommandContext& context);
};

int run_inspect(CommandContext& context);
int run_devices(CommandContext& context);
int run_forward(CommandContext& context);
int run_init_model(CommandContext& context);
int run_demo_vae(CommandContext& context);
int run_sample(CommandContext& context);
int run_prepare(CommandContext& context);
int run_export(CommandContext& context);
int run_train(CommandContext& context);
int run_run(CommandContext& context);
int run_queue(CommandContext& context);
int run_bench(CommandContext& context);
int run_launch(CommandContext& context);
int run_estimate(CommandContext& context);
int run_sweep(CommandContext& context);

// This executable, for commands that start more of it.
std::string own_executable();

// In the run folder of a run on several machines: machine 0 writes it once the dataset is
// prepared (or preparing failed), the others' `run` waits for it before their workers meet, and
// machine 0's `launch` removes it when training ends.
inline constexpr const char* kNodesReadyFile = "nodes-ready.json";

} // namespace tuneframe::cli
