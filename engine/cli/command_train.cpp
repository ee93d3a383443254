// `train --job FILE [--check]`: the run folder is the job file's folder; --check only says
// whether the job can be prepared and trained here, writing nothing.
#include "engine/cli/commands.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/core/media_support.h"
#include "engine/core/pid_file.h"
#include "engine/data/prepared_index.h"
#include "engine/dist/distributed_context.h"
#include "engine/models/model_family.h"
#include "engine/models/module_weights.h"
#include "engine/train/job_model_check.h"
#include "engine/train/sampling/prepared_training_dataset.h"
#include "engine/train/trainer.h"
#if TUNEFRAME_HAVE_TENSORBOARD
#include "engine/tensorboard/tensorboard_sink.h"
#endif

#include <c10/util/Exception.h>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

// The device and precision as prepare and train place the model: a device this machine lacks
// (cuda:99, or CUDA on a CPU-only build) and fp16 on the CPU are refused, naming the field.
void check_placement_here(const common::TrainingJob& job, const fs::path& job_file) {
    models::WeightsPlacement placement;
    const std::string device =
        job.device == "auto" ? (core::cuda_usable() ? "cuda" : "cpu") : job.device;
    try {
        placement.device = models::parse_device(device);
    } catch (const core::Error& error) {
        throw core::Error(error.code(),
                          job_file.string() + ": \"device\" is \"" + job.device +
                              "\": " + error.what(),
                          error.hint())
            .with_field("device");
    }
    try {
        placement.dtype = models::parse_dtype(job.precision);
        models::check_placement(placement);
    } catch (const core::Error& error) {
        throw core::Error(error.code(),
                          job_file.string() + ": \"precision\" is \"" + job.precision + "\" on " +
                              device + ": " + error.what(),
                          error.hint())
            .with_field("precision");
    }
}

// What prepare reads first: the manifest must be a file that exists.
void check_manifest(const common::TrainingJob& job, const fs::path& job_file) {
    if (job.dataset.manifest.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          job_file.string() + ": \"dataset.manifest\" is empty.",
                          "Name the dataset's JSON Lines manifest, relative to the job file.")
            .with_field("dataset.manifest");
    }
    const fs::path manifest = core::job_relative_path(job_file, job.dataset.manifest);
    std::error_code error;
    const fs::file_status status = fs::status(manifest, error);
    if (!fs::is_regular_file(status)) {
        throw core::Error(
            core::ErrorCode::BadInput,
            job_file.string() + ": \"dataset.manifest\" names '" + manifest.string() + "', which " +
                (fs::exists(status) ? "is not a regular file" : "does not exist") + ".",
            "Export the dataset from the studio, or correct dataset.manifest "
            "(relative to the job file).")
            .with_field("dataset.manifest");
    }
}

// A batch larger than the prepared samples would train smaller batches than the job says
// (and than the estimate counted) without a word.
void check_batch_size(const common::TrainingJob& job, const fs::path& job_file,
                      std::int64_t samples) {
    if (job.batch_size > samples) {
        throw core::Error(core::ErrorCode::BadInput,
                          job_file.string() + ": \"batch_size\" is " +
                              std::to_string(job.batch_size) +
                              " but the run's prepared dataset "
                              "holds " +
                              std::to_string(samples) +
                              " sample(s), so no batch "
                              "could be that large.",
                          "Lower batch_size to at most " + std::to_string(samples) +
                              ", or add clips and prepare again.")
            .with_field("batch_size");
    }
}

} // namespace

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
        // What prepare and train would refuse on this machine, refused first.
        check_placement_here(job, job_file);
        check_manifest(job, job_file);
        const fs::path prepared = run / data::PreparedIndex::kFileName;
        if (fs::exists(prepared)) {
            check_batch_size(
                job, job_file,
                static_cast<std::int64_t>(data::PreparedIndex::read(prepared).samples.size()));
        }
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
    std::unique_ptr<train::PreparedTrainingDataset> dataset =
        train::PreparedTrainingDataset::open(run, job_file);
    check_batch_size(job, job_file, dataset->size());
    train::Trainer trainer(job, model, run, std::move(dataset), context.events,
                           commands ? &*commands : nullptr, distributed.get());
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
