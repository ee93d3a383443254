#pragma once

#include "engine/models/wan/transformer_wan.h"

#include <torch/torch.h>

// Small seeded Wan transformers and inputs for the unit tests: four 16-wide heads (so tensor and
// sequence parallelism can split them 2 x 2), three blocks, every parameter drawn (the affine
// norms too, which start as ones and zeros).
namespace tuneframe::test {

inline models::wan::WanTransformer3DConfig tiny_wan_config(bool image_to_video = false) {
    models::wan::WanTransformer3DConfig config;
    config.num_attention_heads = 4;
    config.attention_head_dim = 16;
    config.num_layers = 3;
    config.ffn_dim = 96;
    config.text_dim = 24;
    config.freq_dim = 32;
    config.in_channels = image_to_video ? 36 : 16;
    config.out_channels = 16;
    if (image_to_video) {
        config.image_dim = 20;
        config.added_kv_proj_dim = config.inner_dim();
    }
    return config;
}

inline models::wan::WanTransformer3DModel
seeded_wan_model(const models::wan::WanTransformer3DConfig& config, std::uint64_t seed = 3) {
    torch::manual_seed(seed);
    models::wan::WanTransformer3DModel model(config);
    torch::NoGradGuard no_grad;
    for (auto& parameter : model->parameters()) {
        parameter.copy_(torch::randn_like(parameter) * 0.3);
    }
    return model;
}

struct TinyShape {
    std::int64_t batch = 2;
    std::int64_t frames = 3;
    std::int64_t height = 6;
    std::int64_t width = 10; // 3 x 3 x 5 = 45 tokens: odd, so runs split unevenly
    std::int64_t text = 7;
    bool per_token = false;
};

// Inputs for `config` drawn from `seed`; per-token timesteps differ between tokens and samples.
inline models::TransformerInputs
seeded_wan_inputs(const models::wan::WanTransformer3DConfig& config, const TinyShape& shape = {},
                  std::uint64_t seed = 4) {
    torch::manual_seed(seed);
    models::TransformerInputs inputs;
    inputs.hidden_states =
        torch::randn({shape.batch, config.in_channels, shape.frames, shape.height, shape.width});
    const bool image = config.image_dim.has_value();
    inputs.encoder_hidden_states =
        torch::randn({shape.batch, image ? 512 : shape.text, config.text_dim});
    if (image) {
        inputs.encoder_hidden_states_image = torch::randn({shape.batch, 5, *config.image_dim});
    }
    const std::int64_t tokens =
        shape.frames * (shape.height / config.patch_size[1]) * (shape.width / config.patch_size[2]);
    inputs.timestep = shape.per_token ? torch::rand({shape.batch, tokens}) * 1000
                                      : torch::tensor({937.0, 412.5}).narrow(0, 0, shape.batch);
    return inputs;
}

} // namespace tuneframe::test
