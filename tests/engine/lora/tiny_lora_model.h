#pragma once

// The tiny transformer and one fixed input that the LoRA unit tests adapt and run.

#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <torch/torch.h>

namespace tuneframe::lora::testing {

// cogvideox-tiny with 5 text tokens, so a forward takes milliseconds.
inline models::cogvideox::CogVideoXTransformer3DConfig tiny_config() {
    auto config = models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    config.max_text_seq_length = 5;
    return config;
}

// The same seeded input on every call: two latent frames of 4 x 6 and 5 text tokens.
inline models::cogvideox::CogVideoXTransformerInputs
tiny_inputs(const models::cogvideox::CogVideoXTransformer3DConfig& c) {
    torch::manual_seed(21);
    models::cogvideox::CogVideoXTransformerInputs inputs;
    inputs.hidden_states = torch::randn({1, 2, c.in_channels, 4, 6});
    inputs.encoder_hidden_states = torch::randn({1, 5, c.text_embed_dim});
    inputs.timestep = torch::tensor({321}, torch::kInt64);
    return inputs;
}

} // namespace tuneframe::lora::testing
