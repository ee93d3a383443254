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

int run_forward_transformer(CommandContext& context);
int run_forward_vae_encode(CommandContext& context);
int run_forward_vae_decode(CommandContext& context);
int run_forward_t5(CommandContext& context);
int run_forward_tokenize(CommandContext& context);

} // namespace tuneframe::cli
