#include "engine/cli/commands.h"
#include "engine/cli/forward_components.h"

namespace tuneframe::cli {

// `forward COMPONENT --model DIR --inputs FILE --out FILE ...`: runs one model component on
// tensors from a safetensors file. The component's own file reads the remaining options.
int run_forward(CommandContext& context) {
    Arguments& arguments = context.arguments;
    std::string names;
    for (const ForwardComponent& component : forward_components()) {
        names += (names.empty() ? "" : ", ") + std::string(component.name);
    }
    if (names.empty()) {
        names = "none in this build";
    }
    const std::string name = arguments.positional("COMPONENT (" + names + ")");
    for (const ForwardComponent& component : forward_components()) {
        if (name == component.name) {
            return component.run(context);
        }
    }
    arguments.fail("unknown component '" + name + "'; this build has: " + names + ".");
}

} // namespace tuneframe::cli
