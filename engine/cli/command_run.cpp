// `run --job FILE [--gpus 0,1 | --cpu-ranks N] [--nnodes N --node-rank R --master-addr A
// --master-port P]`: a run's whole chain in one detached process.
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/json_file.h"
#include "engine/core/pid_file.h"
#include "engine/data/dataset_preparer.h"
#include "engine/models/model_family.h"
#include "engine/train/job_model_check.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace tuneframe::cli {

namespace {

namespace fs = std::filesystem;

// The machines a run trains on, as `launch` takes them; one machine when `nnodes` is absent.
struct Machines {
    std::optional<std::string> nnodes;
    std::optional<std::string> node_rank;
    std::optional<std::string> master_addr;
    std::optional<std::string> master_port;

    bool several() const { return nnodes && *nnodes != "1"; }
    bool first() const { return !node_rank || *node_rank == "0"; }
    nlohmann::json describe() const {
        return {{"nnodes", nnodes.value_or("1")},
                {"master_addr", master_addr.value_or("")},
                {"master_port", master_port.value_or("")}};
    }
};

// `train --job FILE`, under `launch` when the run trains in several processes.
std::vector<std::string> train_command_line(const std::string& job,
                                            const std::optional<std::string>& gpus,
                                            const std::optional<std::string>& cpu_ranks,
                                            const Machines& machines) {
    std::vector<std::string> line{own_executable()};
    if (gpus || cpu_ranks) {
        line.insert(line.end(),
                    {"launch", gpus ? "--gpus" : "--cpu-ranks", gpus ? *gpus : *cpu_ranks});
        for (const auto& [flag, value] : {std::pair{"--nnodes", machines.nnodes},
                                          {"--node-rank", machines.node_rank},
                                          {"--master-addr", machines.master_addr},
                                          {"--master-port", machines.master_port}}) {
            if (value) {
                line.insert(line.end(), {flag, *value});
            }
        }
        line.emplace_back("--");
    }
    line.insert(line.end(), {"train", "--job", job});
    return line;
}

// Machine 0 says the dataset is prepared (or why it is not), for the other machines' `run`.
void announce_to_other_machines(const fs::path& run, const Machines& machines,
                                const std::string& failure = {}) {
    nlohmann::json ready = machines.describe();
    if (!failure.empty()) {
        ready["failed"] = failure;
    }
    core::write_json_file(run / kNodesReadyFile, ready);
}

// Another machine's `run`: its workers meet machine 0's once machine 0 has prepared the
// dataset, which can take hours, so it waits for machine 0's word in the shared run folder
// rather than at the rendezvous (whose wait is bounded).
void wait_for_machine_0(const fs::path& run, const Machines& machines, core::EventEmitter& events) {
    const fs::path ready = run / kNodesReadyFile;
    events.log("info", "Waiting for machine 0 to prepare the dataset: it writes '" +
                           ready.string() + "' when done (the run folder must be shared).");
    while (!fs::exists(ready)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    const nlohmann::json said = core::read_json_file(ready);
    if (said.contains("failed")) {
        throw core::Error(core::ErrorCode::Distributed,
                          "Machine 0 could not prepare the dataset: " +
                              said["failed"].get<std::string>(),
                          "Fix what machine 0 reports and start the run on every machine again.");
    }
    if (said != machines.describe()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "Machine 0 trains with " + said.dump() +
                              " but this machine was started with " + machines.describe().dump() +
                              " ('" + ready.string() + "').",
                          "Start every machine with the same --nnodes, --master-addr and "
                          "--master-port, each with its own --node-rank.");
    }
}

void prepare_on_machine_0(const std::string& job, const Machines& machines,
                          core::EventEmitter& events) {
    const fs::path run = fs::path(job).parent_path();
    std::error_code ignored;
    fs::remove(run / kNodesReadyFile, ignored); // a machine 0 killed earlier left it
    data::PrepareSummary summary;
    try {
        summary = data::DatasetPreparer(job, events).run();
    } catch (const std::exception& error) {
        if (machines.several()) {
            announce_to_other_machines(run, machines, error.what());
        }
        throw;
    }
    events.log("info",
               "Prepared the dataset: " + std::to_string(summary.prepared + summary.reused) +
                   " clips to train on (" + std::to_string(summary.reused) +
                   " wholly from the cache), " + std::to_string(summary.skipped) +
                   " left out; training follows.");
    if (machines.several()) {
        announce_to_other_machines(run, machines);
    }
}

} // namespace

// Prepares the dataset here, then becomes the train command by exec: the process the studio
// started (its pid, its stdout, its session) carries the run to its end, so a studio closed
// during an hour of latent caching no longer leaves the run waiting for it. The one `done`
// the run ends with is train's; prepare's summary is a log line.
int run_run(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string job = std::filesystem::absolute(arguments.required_option("--job")).string();
    const std::optional<std::string> gpus = arguments.option("--gpus");
    const std::optional<std::string> cpu_ranks = arguments.option("--cpu-ranks");
    Machines machines{arguments.option("--nnodes"), arguments.option("--node-rank"),
                      arguments.option("--master-addr"), arguments.option("--master-port")};
    arguments.finish();
    if (gpus && cpu_ranks) {
        arguments.fail("--gpus and --cpu-ranks exclude each other.");
    }
    if ((gpus && gpus->empty()) || (cpu_ranks && cpu_ranks->empty())) {
        arguments.fail("--gpus and --cpu-ranks need a value.");
    }
    if (machines.several() &&
        (!(gpus || cpu_ranks) || !machines.master_addr || !machines.master_port)) {
        arguments.fail("several machines need --gpus or --cpu-ranks, and --master-addr and "
                       "--master-port (machine 0's address and a free port on it).");
    }

    // What train would refuse only after every clip was encoded is refused now. (A bare
    // `prepare` does not check it: a cache may be built for jobs that train elsewhere.)
    const common::TrainingJob parsed = core::read_job_file(job);
    train::check_job_against_model(
        parsed, *models::open_model_folder(core::job_relative_path(job, parsed.model)), job);

    // train writes the pid file again, with the same pid, and removes it when it ends; exec
    // skips this one's destructor. The other machines of the run leave the run's files
    // (shared with machine 0) to machine 0.
    std::optional<core::PidFile> pid;
    if (machines.first()) {
        pid.emplace(fs::path(job).parent_path() / "pid");
        prepare_on_machine_0(job, machines, context.events);
    } else {
        wait_for_machine_0(fs::path(job).parent_path(), machines, context.events);
    }

    const std::vector<std::string> line = train_command_line(job, gpus, cpu_ranks, machines);
    std::vector<char*> argv;
    for (const std::string& part : line) {
        argv.push_back(const_cast<char*>(part.c_str()));
    }
    argv.push_back(nullptr);
    ::execv(argv.front(), argv.data());
    throw core::Error(core::ErrorCode::Internal,
                      "Cannot start training after preparing: executing '" + line.front() +
                          "' failed: " + std::strerror(errno) + ".",
                      "The dataset is prepared; run `tuneframe-engine train --job " + job +
                          "` to train.");
}

} // namespace tuneframe::cli
