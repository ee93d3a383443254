// `train --job FILE`: the run folder is the job file's folder.
#include "engine/cli/commands.h"
#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/train/prepared_training_dataset.h"
#include "engine/train/trainer.h"

#include <c10/util/Exception.h>

#include <unistd.h>

namespace tuneframe::cli {
namespace {

namespace fs = std::filesystem;

// <run>/pid while the engine runs, so a restarted studio can tell a live run from a dead one.
class PidFile {
public:
    explicit PidFile(fs::path path)
        : path_(std::move(path)) {
        core::write_file_atomically(path_, std::to_string(::getpid()) + "\n");
    }
    ~PidFile() {
        std::error_code ignored;
        fs::remove(path_, ignored);
    }
    PidFile(const PidFile&) = delete;
    PidFile& operator=(const PidFile&) = delete;

private:
    fs::path path_;
};

} // namespace

int run_train(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path job_file = fs::absolute(arguments.required_option("--job"));
    arguments.finish();
    const fs::path run = job_file.parent_path();
    common::TrainingJob job;
    try {
        job = common::TrainingJob::from_json(core::read_json_file(job_file), job_file.string());
    } catch (const common::JobError& error) {
        throw core::Error(core::ErrorCode::BadInput, error.what(), error.hint());
    }
    fs::path model = job.model;
    if (model.is_relative()) {
        model = run / model;
    }
    context.events.attach_log(run / "events.jsonl");
    const PidFile pid(run / "pid");
    train::CommandChannel commands(run / "control.sock", [&](const std::string& warning) {
        context.events.log("warning", warning);
    });
    train::Trainer trainer(job, model, run, train::PreparedTrainingDataset::open(run, job_file),
                           context.events, &commands);
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
    context.events.done(result.status, {{"steps", result.steps},
                                        {"loss", result.last_loss},
                                        {"checkpoint", result.last_checkpoint.string()}});
    return 0;
}

} // namespace tuneframe::cli
