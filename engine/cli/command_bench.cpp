// `bench`: one JSON line with the median training-step time, tokens/s and peak memory.
#include "engine/cli/commands.h"
#include "engine/train/bench/training_bench.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace tuneframe::cli {

int run_bench(CommandContext& context) {
    Arguments& arguments = context.arguments;
    const std::optional<std::string> shape = arguments.option("--shape");
    const std::optional<std::string> arch = arguments.option("--arch");
    if (shape.has_value() == arch.has_value()) {
        arguments.fail("Give either --shape NAME or --arch NAME.");
    }
    train::BenchSpec spec = shape ? train::bench_shape(*shape) : train::bench_architecture(*arch);
    auto whole = [&](const char* name, std::int64_t fallback) {
        const double value = arguments.number_option(name, static_cast<double>(fallback));
        if (value < 1 || value != std::floor(value)) {
            arguments.fail(std::string(name) + " must be a positive whole number.");
        }
        return static_cast<std::int64_t>(value);
    };
    spec.frames = whole("--frames", spec.frames);
    spec.height = whole("--height", spec.height);
    spec.width = whole("--width", spec.width);
    spec.rank = whole("--rank", spec.rank);
    spec.steps = whole("--steps", spec.steps);
    // Absent (NaN): the architecture's own depth.
    if (const double layers = arguments.number_option("--layers", std::nan(""));
        !std::isnan(layers)) {
        if (layers < 1 || layers != std::floor(layers)) {
            arguments.fail("--layers must be a positive whole number.");
        }
        spec.layers = static_cast<std::int64_t>(layers);
    }
    spec.task = arguments.option("--task").value_or(spec.task);
    if (!spec.task.empty() && spec.task != "t2v" && spec.task != "i2v") {
        arguments.fail("--task must be t2v or i2v.");
    }
    spec.optimizer = arguments.option("--optimizer").value_or(spec.optimizer);
    spec.device = arguments.option("--device").value_or(spec.device);
    spec.precision = arguments.option("--dtype").value_or(spec.precision);
    spec.attention = arguments.option("--attention").value_or(spec.attention);
    spec.quantize = arguments.option("--quantize").value_or(spec.quantize);
    spec.profile_path = arguments.option("--profile").value_or("");
    spec.validation_pipeline = arguments.option("--validation").value_or("");
    spec.validation_steps = whole("--validation-steps", spec.validation_steps);
    if (const double swapped = arguments.number_option("--blocks-to-swap", 0); swapped != 0) {
        if (swapped < 0 || swapped != std::floor(swapped)) {
            arguments.fail("--blocks-to-swap must be a whole number of blocks.");
        }
        spec.blocks_to_swap = static_cast<std::int64_t>(swapped);
    }
    if (const double fraction = arguments.number_option("--memory-fraction", std::nan(""));
        !std::isnan(fraction)) {
        if (!(fraction > 0 && fraction <= 1)) {
            arguments.fail("--memory-fraction must be above 0 and at most 1 (24 GiB of a "
                           "141 GiB GPU: 0.17).");
        }
        spec.memory_fraction = fraction;
    }
    spec.validation_prompts = whole("--validation-prompts", spec.validation_prompts);
    if (arguments.flag("--checkpointing")) {
        spec.checkpointing = true;
    }
    if (arguments.flag("--no-checkpointing")) {
        spec.checkpointing = false;
    }
    spec.keep_attention = arguments.flag("--keep-attention");
    spec.offload_activations = arguments.flag("--offload-activations");
    if (const std::optional<std::string> blocks = arguments.option("--checkpointed-blocks")) {
        char* end = nullptr;
        const long long count = std::strtoll(blocks->c_str(), &end, 10);
        if (blocks->empty() || *end != '\0' || count < 1) {
            arguments.fail("--checkpointed-blocks must be a positive whole number.");
        }
        spec.checkpointed_blocks = count;
    }
    arguments.finish();
    std::cout << train::run_bench(spec).dump() << std::endl;
    return 0;
}

} // namespace tuneframe::cli
