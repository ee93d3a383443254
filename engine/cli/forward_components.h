#pragma once

#include "engine/cli/commands.h"

#include <ATen/core/Tensor.h>

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

// A BadInput error naming `file` and the tensor unless `tensor` has one dimension per entry of
// `layout` (e.g. {"batch", "frames", ...}), none of them empty: a zero-frame video otherwise
// surfaces as a LibTorch reshape error deep inside the model.
void check_input_shape(const std::string& file, const std::string& name, const at::Tensor& tensor,
                       const std::vector<std::string>& layout);

int run_forward_transformer(CommandContext& context);
int run_forward_vae_encode(CommandContext& context);
int run_forward_vae_decode(CommandContext& context);
int run_forward_t5(CommandContext& context);
int run_forward_tokenize(CommandContext& context);

} // namespace tuneframe::cli
