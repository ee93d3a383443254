#include "engine/models/clip/clip_init.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/core/text_affixes.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models::clip {
namespace {

// Standard deviation of CLIPPreTrainedModel._init_weights for a parameter, or a negative value
// for a constant: -1 for ones (LayerNorm weights), -2 for zeros (biases).
double clip_init_std(const std::string& name, const CLIPVisionConfig& config) {
    const double factor = config.initializer_factor;
    const double hidden = static_cast<double>(config.hidden_size);
    const double in_proj = std::pow(hidden, -0.5) *
                           std::pow(2.0 * static_cast<double>(config.num_hidden_layers), -0.5) *
                           factor;
    if (core::ends_with(name, ".bias")) {
        return -2;
    }
    if (core::ends_with(name, "layer_norm1.weight") ||
        core::ends_with(name, "layer_norm2.weight") || core::ends_with(name, "layrnorm.weight") ||
        core::ends_with(name, "layernorm.weight")) {
        return -1;
    }
    if (core::ends_with(name, "class_embedding") || name == "visual_projection.weight") {
        return std::pow(hidden, -0.5) * factor;
    }
    if (core::ends_with(name, "patch_embedding.weight") ||
        core::ends_with(name, "position_embedding.weight")) {
        return config.initializer_range * factor;
    }
    if (core::ends_with(name, "out_proj.weight")) {
        return std::pow(hidden, -0.5) * factor;
    }
    if (core::ends_with(name, "fc1.weight")) {
        return std::pow(2.0 * hidden, -0.5) * factor;
    }
    return in_proj; // q_proj, k_proj, v_proj, fc2
}

} // namespace

CLIPVisionConfig tiny_clip_vision_config(std::int64_t hidden_size, std::int64_t image_size) {
    CLIPVisionConfig config;
    config.hidden_size = hidden_size;
    config.intermediate_size = 4 * hidden_size;
    config.projection_dim = hidden_size;
    config.num_hidden_layers = 2;
    config.num_attention_heads = 4;
    config.image_size = image_size;
    config.patch_size = 8;
    config.hidden_act = "gelu";
    return config;
}

void initialise_clip_vision_model(CLIPVisionModelWithProjectionImpl& model, std::uint64_t seed) {
    torch::NoGradGuard no_grad;
    at::Generator generator = at::make_generator<at::CPUGeneratorImpl>(seed);
    for (const auto& item : model.named_parameters()) {
        const double std = clip_init_std(item.key(), model.config());
        at::Tensor value = at::empty(item.value().sizes(), at::kFloat);
        if (std == -1) {
            value.fill_(1.0);
        } else if (std == -2) {
            value.zero_();
        } else {
            value.normal_(0.0, std, generator);
        }
        item.value().copy_(value);
    }
}

void write_random_clip_image_encoder(const CLIPVisionConfig& config,
                                     const std::filesystem::path& folder, std::uint64_t seed,
                                     c10::ScalarType dtype) {
    CLIPVisionModelWithProjection model(config, WeightsPlacement{dtype, c10::kCPU});
    initialise_clip_vision_model(*model, seed);
    std::filesystem::create_directories(folder);
    core::write_tensors(folder / "model.safetensors", module_tensors(*model), {{"format", "pt"}});
    nlohmann::json json = config.to_json();
    json["torch_dtype"] = dtype == c10::kBFloat16 ? "bfloat16"
                          : dtype == c10::kHalf   ? "float16"
                                                  : "float32";
    core::write_json_file(folder / "config.json", json);
}

void write_clip_image_processor(const std::filesystem::path& folder, std::int64_t image_size) {
    CLIPImageProcessorConfig config;
    config.shortest_edge = image_size;
    config.crop_height = config.crop_width = image_size;
    std::filesystem::create_directories(folder);
    core::write_json_file(folder / "preprocessor_config.json", config.to_json());
}

void write_tiny_image_components(const std::filesystem::path& image_encoder_folder,
                                 const std::filesystem::path& image_processor_folder,
                                 std::int64_t hidden_size, std::int64_t image_size,
                                 std::uint64_t seed) {
    if (image_size % 8 != 0 || hidden_size % 4 != 0) {
        throw core::Error(core::ErrorCode::BadInput,
                          "a tiny CLIP needs an image size that is a multiple of 8 and a width "
                          "that is a multiple of 4, not " +
                              std::to_string(image_size) + " and " + std::to_string(hidden_size) +
                              ".",
                          "Pick sizes such as 32 and 20.");
    }
    write_random_clip_image_encoder(tiny_clip_vision_config(hidden_size, image_size),
                                    image_encoder_folder, seed);
    write_clip_image_processor(image_processor_folder, image_size);
}

} // namespace tuneframe::models::clip
