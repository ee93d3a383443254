#pragma once

#include "engine/cli/commands.h"

#include <string>
#include <vector>

namespace tuneframe::cli {

// One component `tuneframe-engine forward COMPONENT` can run. Each component's file defines its
// run function; forward_components.cpp lists them.
struct ForwardComponent {
    const char* name;
    const char* usage;
    int (*run)(CommandContext& context);
};

const std::vector<ForwardComponent>& forward_components();

} // namespace tuneframe::cli
