// `launch (--gpus 0,1 | --cpu-ranks N) [--nnodes N --node-rank R --master-addr A
// --master-port P] -- train --job FILE`: one worker per GPU, supervised.
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/pid_file.h"
#include "engine/dist/launch_supervisor.h"
#if TUNEFRAME_HAVE_TENSORBOARD
#include "engine/tensorboard/tensorboard_sink.h"
#endif

#include <optional>
#include <sstream>
#include <unistd.h>

namespace tuneframe::cli {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

int whole_int(Arguments& arguments, std::string_view name, int fallback, int minimum) {
    const double value = arguments.number_option(name, fallback);
    if (value != static_cast<int>(value) || value < minimum) {
        arguments.fail(std::string(name) + " must be a whole number of at least " +
                       std::to_string(minimum) + ".");
    }
    return static_cast<int>(value);
}

// The job file of a `train --job FILE` command line; its folder is the run folder.
std::optional<fs::path> job_file_of(const std::vector<std::string>& command) {
    for (std::size_t i = 0; i + 1 < command.size(); ++i) {
        if (command[i] == "--job") {
            return fs::absolute(command[i + 1]);
        }
        if (command[i].rfind("--job=", 0) == 0) {
            return fs::absolute(command[i].substr(6));
        }
    }
    return std::nullopt;
}

} // namespace

std::string own_executable() {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string("tuneframe-engine") : self.string();
}

int run_launch(CommandContext& context) {
    Arguments& arguments = context.arguments;
    dist::LaunchOptions options;
    options.command = arguments.after_separator();
    if (const auto gpus = arguments.option("--gpus")) {
        options.gpus = split_list(*gpus);
    }
    options.cpu_ranks = whole_int(arguments, "--cpu-ranks", 0, 0);
    options.nnodes = whole_int(arguments, "--nnodes", 1, 1);
    options.node_rank = whole_int(arguments, "--node-rank", 0, 0);
    options.master_addr = arguments.option("--master-addr").value_or("127.0.0.1");
    options.master_port = whole_int(arguments, "--master-port", 0, 0);
    arguments.finish();
    if (options.command.empty()) {
        arguments.fail("give the workers' command after '--', e.g. -- train --job RUN/job.json.");
    }
    if (options.command.front() != "train") {
        arguments.fail("only 'train' runs on several ranks, not '" + options.command.front() +
                       "'.");
    }
    if (options.gpus.empty() == (options.cpu_ranks == 0)) {
        arguments.fail("choose the workers with either --gpus 0,1,... or --cpu-ranks N.");
    }
    if (options.node_rank >= options.nnodes) {
        arguments.fail("--node-rank must be below --nnodes.");
    }
    if (options.nnodes > 1 && (options.master_port == 0 || options.master_addr == "127.0.0.1")) {
        arguments.fail("several nodes need --master-addr (node 0's address, reachable from the "
                       "others) and --master-port.");
    }
    options.engine = own_executable();
    const std::optional<fs::path> job_file = job_file_of(options.command);
    std::optional<core::PidFile> pid;
    if (job_file && options.node_rank == 0) {
        const fs::path run = job_file->parent_path();
        context.events.attach_log(run / "events.jsonl");
        pid.emplace(run / "pid");
#if TUNEFRAME_HAVE_TENSORBOARD
        // Rank 0's events pass through here, and its worker leaves the run files to us.
        tensorboard::TensorBoardSink::attach(context.events, *job_file);
#endif
    }
    // Machine 0's word to the other machines' `run` (command_run.cpp) holds until training ends.
    struct ForgetReady {
        std::optional<fs::path> file;
        ~ForgetReady() {
            std::error_code ignored;
            if (file) {
                fs::remove(*file, ignored);
            }
        }
    } forget_ready;
    if (job_file && options.node_rank == 0 && options.nnodes > 1) {
        forget_ready.file = job_file->parent_path() / kNodesReadyFile;
    }
    dist::LaunchSupervisor supervisor(options, context.events);
    return supervisor.run();
}

} // namespace tuneframe::cli
