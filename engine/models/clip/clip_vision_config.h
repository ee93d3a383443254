#pragma once

// transformers' CLIPVisionConfig (models/clip/configuration_clip.py): the vision tower of CLIP
// as CLIPVisionModel and CLIPVisionModelWithProjection read it, which is the image_encoder/
// of Wan's I2V pipelines (laion/CLIP-ViT-H-14: 32 layers of width 1280, patch 14, image 224,
// "gelu").

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace tuneframe::models::clip {

struct CLIPVisionConfig {
    std::int64_t hidden_size = 768;
    std::int64_t intermediate_size = 3072;
    std::int64_t projection_dim = 512;
    std::int64_t num_hidden_layers = 12;
    std::int64_t num_attention_heads = 12;
    std::int64_t num_channels = 3;
    std::int64_t image_size = 224;
    std::int64_t patch_size = 32;
    std::string hidden_act = "quick_gelu"; // "gelu" (erf), "quick_gelu", "gelu_new" (tanh)
    double layer_norm_eps = 1e-5;
    double initializer_range = 0.02;
    double initializer_factor = 1.0;
    // CLIPVisionModelWithProjection's visual_projection; CLIPVisionModel has none.
    bool with_projection = true;

    // A vision config (model_type "clip_vision_model", what the pipelines save) or a whole
    // CLIPConfig (model_type "clip"), whose vision_config is read. `origin` names the file in
    // errors (".../image_encoder/config.json").
    static CLIPVisionConfig from_json(const nlohmann::json& json, const std::string& origin);
    // The config.json transformers writes for a CLIPVisionModelWithProjection (or a
    // CLIPVisionModel without the projection).
    nlohmann::json to_json() const;

    std::int64_t head_dim() const { return hidden_size / num_attention_heads; }
    std::int64_t num_patches() const {
        return (image_size / patch_size) * (image_size / patch_size);
    }
    std::int64_t num_positions() const { return num_patches() + 1; } // the class token first
};

} // namespace tuneframe::models::clip
