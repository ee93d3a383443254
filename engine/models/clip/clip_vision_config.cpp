#include "engine/models/clip/clip_vision_config.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <initializer_list>
#include <utility>

namespace tuneframe::models::clip {
namespace {

using core::Error;
using core::ErrorCode;

const char* const kFix = "Point at the image_encoder/ folder of a Wan image-to-video pipeline.";

bool lists_architecture(const nlohmann::json& json, const std::string& name) {
    auto architectures = json.find("architectures");
    if (architectures == json.end() || !architectures->is_array()) {
        return false;
    }
    for (const auto& entry : *architectures) {
        if (entry.is_string() && entry.get<std::string>() == name) {
            return true;
        }
    }
    return false;
}

} // namespace

CLIPVisionConfig CLIPVisionConfig::from_json(const nlohmann::json& json,
                                             const std::string& origin) {
    if (!json.is_object()) {
        throw Error(ErrorCode::BadInput, origin + " does not hold a JSON object.", kFix);
    }
    const core::JsonFields top(json, origin);
    const std::string type = top.optional<std::string>("model_type", "clip_vision_model");
    if (type != "clip_vision_model" && type != "clip") {
        throw Error(ErrorCode::BadInput,
                    origin + ": model_type is \"" + type +
                        "\"; an image encoder here is CLIP's vision tower (\"clip_vision_model\" "
                        "or \"clip\").",
                    kFix);
    }
    const bool nested = type == "clip";
    if (nested && !json.contains("vision_config")) {
        throw Error(ErrorCode::BadInput, origin + ": a CLIP config without \"vision_config\".",
                    kFix);
    }
    const nlohmann::json& vision = nested ? json.at("vision_config") : json;
    const core::JsonFields fields(vision, nested ? origin + " (vision_config)" : origin);
    CLIPVisionConfig config;
    config.hidden_size = fields.optional<std::int64_t>("hidden_size", config.hidden_size);
    config.intermediate_size =
        fields.optional<std::int64_t>("intermediate_size", config.intermediate_size);
    config.projection_dim = fields.optional<std::int64_t>("projection_dim", config.projection_dim);
    config.num_hidden_layers =
        fields.optional<std::int64_t>("num_hidden_layers", config.num_hidden_layers);
    config.num_attention_heads =
        fields.optional<std::int64_t>("num_attention_heads", config.num_attention_heads);
    config.num_channels = fields.optional<std::int64_t>("num_channels", config.num_channels);
    config.image_size = fields.optional<std::int64_t>("image_size", config.image_size);
    config.patch_size = fields.optional<std::int64_t>("patch_size", config.patch_size);
    config.hidden_act = fields.optional<std::string>("hidden_act", config.hidden_act);
    config.layer_norm_eps = fields.optional<double>("layer_norm_eps", config.layer_norm_eps);
    config.initializer_range =
        fields.optional<double>("initializer_range", config.initializer_range);
    config.initializer_factor =
        fields.optional<double>("initializer_factor", config.initializer_factor);
    config.with_projection = !lists_architecture(json, "CLIPVisionModel");

    using Field = std::pair<std::int64_t, const char*>;
    for (const auto& [value, name] :
         std::initializer_list<Field>{{config.hidden_size, "hidden_size"},
                                      {config.intermediate_size, "intermediate_size"},
                                      {config.projection_dim, "projection_dim"},
                                      {config.num_hidden_layers, "num_hidden_layers"},
                                      {config.num_attention_heads, "num_attention_heads"},
                                      {config.num_channels, "num_channels"},
                                      {config.image_size, "image_size"},
                                      {config.patch_size, "patch_size"}}) {
        if (value <= 0) {
            throw Error(ErrorCode::BadInput,
                        origin + ": \"" + name + "\" must be positive, not " +
                            std::to_string(value) + ".",
                        "Restore config.json from the model's download.");
        }
    }
    if (config.hidden_size % config.num_attention_heads != 0) {
        throw Error(ErrorCode::BadInput,
                    origin + ": hidden_size " + std::to_string(config.hidden_size) +
                        " is not a multiple of num_attention_heads " +
                        std::to_string(config.num_attention_heads) + ".",
                    "Restore config.json from the model's download.");
    }
    if (config.image_size % config.patch_size != 0) {
        throw Error(ErrorCode::BadInput,
                    origin + ": image_size " + std::to_string(config.image_size) +
                        " is not a multiple of patch_size " + std::to_string(config.patch_size) +
                        ".",
                    "Restore config.json from the model's download.");
    }
    const auto& act = config.hidden_act;
    if (act != "gelu" && act != "quick_gelu" && act != "gelu_new" && act != "gelu_pytorch_tanh") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": hidden_act \"" + act + "\" is not supported.",
                    "CLIP image encoders use \"gelu\" or \"quick_gelu\".");
    }
    return config;
}

nlohmann::json CLIPVisionConfig::to_json() const {
    return {
        {"architectures", {with_projection ? "CLIPVisionModelWithProjection" : "CLIPVisionModel"}},
        {"model_type", "clip_vision_model"},
        {"attention_dropout", 0.0},
        {"dropout", 0.0},
        {"hidden_act", hidden_act},
        {"hidden_size", hidden_size},
        {"image_size", image_size},
        {"initializer_factor", initializer_factor},
        {"initializer_range", initializer_range},
        {"intermediate_size", intermediate_size},
        {"layer_norm_eps", layer_norm_eps},
        {"num_attention_heads", num_attention_heads},
        {"num_channels", num_channels},
        {"num_hidden_layers", num_hidden_layers},
        {"patch_size", patch_size},
        {"projection_dim", projection_dim},
        {"torch_dtype", "float32"}};
}

} // namespace tuneframe::models::clip
