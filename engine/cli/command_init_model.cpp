#include "engine/cli/commands.h"
#include "engine/core/error.h"
#include "engine/core/safetensors/checkpoint_inventory.h"
#include "engine/models/model_family.h"
#include "engine/models/module_weights.h"

#include <iostream>

namespace tuneframe::cli {

// `init-model --arch NAME --out DIR [--complete]`: a randomly initialised model in diffusers
// layout.
int run_init_model(CommandContext& context) {
    Arguments& arguments = context.arguments;
    models::InitModelOptions options;
    options.arch = arguments.required_option("--arch");
    options.out = arguments.required_option("--out");
    if (auto dtype = arguments.option("--dtype")) {
        options.dtype = models::parse_dtype(*dtype);
    }
    options.seed = static_cast<std::uint64_t>(arguments.number_option("--seed", 0));
    options.complete = arguments.flag("--complete");
    arguments.finish();

    const std::unique_ptr<models::ModelFamily> family =
        models::family_of_architecture(options.arch);
    std::error_code error;
    if (std::filesystem::exists(options.out, error) &&
        !std::filesystem::is_empty(options.out, error)) {
        throw core::Error(core::ErrorCode::BadInput,
                          "'" + options.out.string() + "' exists and is not empty.",
                          "Choose a new folder, or delete this one first.");
    }
    const models::InitModelResult written = family->init_model(options);
    std::string components;
    for (const std::string& component : written.components) {
        components += (components.empty() ? "" : ", ") + component + "/";
    }
    std::cout << "wrote " << options.arch << " ("
              << core::format_count(written.transformer_parameters)
              << " transformer parameters) to " << options.out.string() << ": " << components
              << "\n";
    return 0;
}

} // namespace tuneframe::cli
