// `run --job FILE [--gpus 0,1 | --cpu-ranks N]`: a run's whole chain in one detached process.
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/pid_file.h"
#include "engine/data/dataset_preparer.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/train/job_model_check.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

namespace tuneframe::cli {

namespace {

// `train --job FILE`, under `launch` when the run trains in several processes.
std::vector<std::string> train_command_line(const std::string& job,
                                            const std::optional<std::string>& gpus,
                                            const std::optional<std::string>& cpu_ranks) {
    std::vector<std::string> line{own_executable()};
    if (gpus || cpu_ranks) {
        line.insert(line.end(),
                    {"launch", gpus ? "--gpus" : "--cpu-ranks", gpus ? *gpus : *cpu_ranks, "--"});
    }
    line.insert(line.end(), {"train", "--job", job});
    return line;
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
    arguments.finish();
    if (gpus && cpu_ranks) {
        arguments.fail("--gpus and --cpu-ranks exclude each other.");
    }
    if ((gpus && gpus->empty()) || (cpu_ranks && cpu_ranks->empty())) {
        arguments.fail("--gpus and --cpu-ranks need a value.");
    }

    // What train would refuse only after every clip was encoded is refused now. (A bare
    // `prepare` does not check it: a cache may be built for jobs that train elsewhere.)
    const common::TrainingJob parsed = core::read_job_file(job);
    train::check_job_against_model(
        parsed, diffusion::PipelineFolder::open(core::job_relative_path(job, parsed.model)), job);

    // train writes the pid file again, with the same pid, and removes it when it ends; exec
    // skips this one's destructor.
    const core::PidFile pid(std::filesystem::path(job).parent_path() / "pid");
    const data::PrepareSummary summary = data::DatasetPreparer(job, context.events).run();
    context.events.log(
        "info", "Prepared the dataset: " + std::to_string(summary.prepared + summary.reused) +
                    " clips to train on (" + std::to_string(summary.reused) +
                    " wholly from the cache), " + std::to_string(summary.skipped) +
                    " left out; training follows.");

    const std::vector<std::string> line = train_command_line(job, gpus, cpu_ranks);
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
