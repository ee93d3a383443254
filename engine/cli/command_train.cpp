// `train --job FILE [--check]`: the run folder is the job file's folder; --check only says
// whether the job can train on its model, writing nothing.
#include "engine/cli/commands.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/media_support.h"
#include "engine/core/pid_file.h"
#include "engine/dist/distributed_context.h"
#include "engine/models/model_family.h"
#include "engine/train/job_model_check.h"
#include "engine/train/sampling/prepared_training_dataset.h"
#include "engine/train/trainer.h"
#if TUNEFRAME_HAVE_TENSORBOARD
#include "engine/tensorboard/tensorboard_sink.h"
#endif

#include <c10/util/Exception.h>

namespace tuneframe::cli {

namespace fs = std::filesystem;

int run_train(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path job_file = fs::absolute(arguments.required_option("--job"));
    const bool check_only = arguments.flag("--check");
    arguments.finish();
    const fs::path run = job_file.parent_path();
    const common::TrainingJob job = core::read_job_file(job_file);
    const fs::path model = core::job_relative_path(job_file, job.model);
    // Before anything is written to the run folder: --check only answers whether it would run.
    train::check_job_against_model(job, *models::open_model_folder(model), job_file.string());
    core::require_media_for_validation(job, job_file, core::engine_has_media());
    if (check_only) {
        context.events.done("ok", {{"checked", job_file.string()}});
        return 0;
    }
    // Under torchrun, srun or `launch` this process is one rank. Rank 0 speaks for the run
    // (events.jsonl, pid, commands) unless `launch` does, which then writes those itself.
    const std::optional<dist::RendezvousEnvironment> environment =
        dist::RendezvousEnvironment::from_process_environment();
    std::unique_ptr<dist::DistributedContext> distributed;
    if (environment) {
        const bool cpu = job.device == "cpu" || (job.device == "auto" && !core::cuda_usable());
        // Each worker's GPU is current before NCCL or the model allocate anything on it;
        // otherwise every rank of a torchrun or srun node would land on GPU 0.
        const c10::Device device =
            cpu ? c10::Device(c10::kCPU) : core::use_cuda_device(environment->local_rank);
        distributed =
            std::make_unique<dist::DistributedContext>(*environment, job.parallel, device, 0, 0);
    }
    const bool main_rank = !environment || environment->rank == 0;
    const bool owns_run_files = main_rank && !(environment && environment->under_launch);
    if (owns_run_files) {
        context.events.attach_log(run / "events.jsonl");
#if TUNEFRAME_HAVE_TENSORBOARD
        // The one writer of the run's TensorBoard files is whoever writes its events.jsonl.
        tensorboard::TensorBoardSink::attach(context.events, job_file);
#endif
    }
    std::optional<core::PidFile> pid;
    if (owns_run_files) {
        pid.emplace(run / "pid");
    }
    std::optional<train::CommandChannel> commands;
    if (main_rank) {
        commands.emplace(run / "control.sock", [&](const std::string& warning) {
            context.events.log("warning", warning);
        });
    }
    train::Trainer trainer(job, model, run, train::PreparedTrainingDataset::open(run, job_file),
                           context.events, commands ? &*commands : nullptr, distributed.get());
    train::TrainResult result;
    try {
        result = trainer.run();
    } catch (const c10::OutOfMemoryError& error) {
        throw core::Error(core::ErrorCode::Oom,
                          std::string("Device memory ran out while training: ") +
                              error.what_without_backtrace(),
                          "Turn on gradient_checkpointing, lower batch_size, lora.rank or the "
                          "resolution_buckets/frame_buckets, or choose optimizer adamw8bit or "
                          "adamw-cpu-offload; the run resumes from its last checkpoint.");
    }
    if (!main_rank) {
        return 0;
    }
    context.events.done(result.status, {{"steps", result.steps},
                                        {"loss", result.last_loss},
                                        {"checkpoint", result.last_checkpoint.string()}});
    return 0;
}

} // namespace tuneframe::cli
