// `estimate --job FILE [--processes N]`: the job's memory per process and phase, before any
// weights are loaded (the studio's pre-flight check; on a cluster, before asking for GPUs).
#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "engine/dist/distributed_context.h"
#include "engine/models/model_family.h"
#include "engine/train/job_memory_estimate.h"
#include "engine/train/job_model_check.h"
#include "engine/train/run_experts.h"

#include <filesystem>

namespace tuneframe::cli {

namespace fs = std::filesystem;

int run_estimate(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const fs::path job_file = fs::absolute(arguments.required_option("--job"));
    const double processes = arguments.number_option("--processes", 1);
    arguments.finish();
    if (processes < 1 || processes > 4096) {
        arguments.fail("--processes must be between 1 and 4096.");
    }
    common::TrainingJob job = core::read_job_file(job_file);
    const fs::path model = core::job_relative_path(job_file, job.model);
    job.model = model.string();
    // A job that cannot run has no memory to estimate; the studio shows why beside the field.
    const std::unique_ptr<models::ModelFolder> folder = models::open_model_folder(model);
    train::check_job_against_model(job, *folder, job_file.string());
    // So is a plan the processes cannot be laid out on (one process trains whole, whatever
    // the plan says).
    if (processes > 1) {
        dist::check_parallel_layout(job.parallel, static_cast<int>(processes),
                                    folder->num_attention_heads(), folder->num_blocks());
        // As the trainer refuses it.
        if (train::run_experts::trained(job, folder->experts()).size() > 1) {
            throw core::Error(core::ErrorCode::BadInput,
                              job_file.string() + ": training both experts of '" + model.string() +
                                  "' in one run works on a single process.",
                              "Estimate with --processes 1, or set flow_matching.expert to "
                              "high_noise or low_noise and train one expert per run.");
        }
    }
    const train::JobMemoryEstimate estimate = train::estimate_job_memory(
        job, *folder, core::inventory(model), static_cast<int>(processes));
    for (std::size_t i = 0; i < estimate.phases.size(); ++i) {
        const train::PhaseMemory& phase = estimate.phases[i];
        std::string line = phase.phase + ": " + core::format_bytes(phase.total()) + " per process";
        const train::PhaseMemory& host_phase = estimate.host_phases.at(i);
        if (const std::uint64_t host = host_phase.total(); host > 0) {
            // What takes it, by name: which lever (swapped blocks, a parked expert, offloaded
            // activations or optimizer state) costs the host what.
            std::string parts;
            for (const train::MemoryPart& part : host_phase.parts) {
                if (part.bytes > 0) {
                    parts += (parts.empty() ? "" : ", ") + part.name + " " +
                             core::format_bytes(part.bytes);
                }
            }
            line += ", and " + core::format_bytes(host) + " of host memory (" + parts + ")";
        }
        if (phase.skipped) {
            line += " (not run: the job has no validation prompts)";
        }
        context.events.log("info", line);
    }
    context.events.done("ok", estimate.to_json());
    return 0;
}

} // namespace tuneframe::cli
