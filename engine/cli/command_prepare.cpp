// `prepare --job FILE`: the job's dataset into the latent cache and the run's prepared.jsonl.
#include "engine/cli/commands.h"
#include "engine/data/dataset_preparer.h"

namespace tuneframe::cli {

int run_prepare(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::string job = arguments.required_option("--job");
    arguments.finish();

    data::DatasetPreparer preparer(job, context.events);
    const data::PrepareSummary summary = preparer.run();
    context.events.done("ok", {{"prepared", summary.prepared},
                               {"reused", summary.reused},
                               {"skipped", summary.skipped},
                               {"latents_encoded", summary.latents_encoded},
                               {"captions_encoded", summary.captions_encoded},
                               {"seconds", summary.seconds},
                               {"index", summary.index_file.string()},
                               {"cache_dir", summary.cache_dir.string()}});
    return 0;
}

} // namespace tuneframe::cli
