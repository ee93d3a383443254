#pragma once

#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"

#include <torch/torch.h>

#include <string>
#include <vector>

namespace tuneframe::test {

// The tiny model with four heads, so tensor and sequence parallelism can split them 2 x 2.
inline models::cogvideox::CogVideoXTransformer3DConfig four_head_config() {
    models::cogvideox::CogVideoXTransformer3DConfig config =
        models::cogvideox::find_architecture("cogvideox-tiny").transformer;
    config.num_attention_heads = 4;
    config.attention_head_dim = 16;
    return config;
}

// The same model on every caller: seeded weights, rank-4 adapters on `targets` with lora_B drawn
// too (a fresh B of zeros would leave lora_A without a gradient), every block checkpointed, in
// training mode.
inline models::cogvideox::CogVideoXTransformer3DModel
four_head_lora_model(const std::vector<std::string>& targets) {
    torch::manual_seed(3);
    models::cogvideox::CogVideoXTransformer3DModel model(four_head_config());
    lora::LoRAConfig adapters;
    adapters.rank = 4;
    adapters.target_modules = targets;
    lora::inject_lora(*model, adapters);
    torch::NoGradGuard no_grad;
    for (auto& item : model->named_parameters()) {
        if (item.key().find("lora_B") != std::string::npos) {
            item.value().normal_(0.0, 0.1);
        }
    }
    model->set_gradient_checkpointing(true);
    model->train();
    return model;
}

} // namespace tuneframe::test
