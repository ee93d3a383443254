#include "engine/models/clip/clip_vision_model.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/kernels/attention.h"
#include "engine/models/t5/t5_encoder.h"

#include <torch/torch.h>

namespace tuneframe::models::clip {
namespace {

using core::Error;
using core::ErrorCode;

// Layers are built in float32 on the CPU (LibTorch's default) and moved one by one, so a
// bf16 model never holds a float32 copy of itself. Under lora::SkipInitGuard (the loader) the
// float32 storage is allocated without being written.
lora::LoRALinear make_linear(std::int64_t in, std::int64_t out, bool bias,
                             const c10::TensorOptions& options) {
    lora::LoRALinear linear(in, out, bias);
    linear->to(options.device(), options.dtype().toScalarType());
    return linear;
}

torch::nn::LayerNorm make_layer_norm(std::int64_t dim, double eps,
                                     const c10::TensorOptions& options) {
    torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({dim}).eps(eps));
    norm->to(options.device(), options.dtype().toScalarType());
    return norm;
}

} // namespace

CLIPVisionEmbeddingsImpl::CLIPVisionEmbeddingsImpl(const CLIPVisionConfig& config,
                                                   const c10::TensorOptions& options) {
    class_embedding =
        register_parameter("class_embedding", torch::empty({config.hidden_size}, options));
    patch_embedding = register_module(
        "patch_embedding",
        torch::nn::Conv2d(
            torch::nn::Conv2dOptions(config.num_channels, config.hidden_size, config.patch_size)
                .stride(config.patch_size)
                .bias(false)));
    patch_embedding->to(options.device(), options.dtype().toScalarType());
    position_embedding = register_module(
        "position_embedding", torch::nn::Embedding(config.num_positions(), config.hidden_size));
    position_embedding->to(options.device(), options.dtype().toScalarType());
}

at::Tensor CLIPVisionEmbeddingsImpl::forward(const at::Tensor& pixel_values) {
    const std::int64_t batch = pixel_values.size(0);
    const at::Tensor patches = patch_embedding->forward(pixel_values.to(class_embedding.dtype()))
                                   .flatten(2)
                                   .transpose(1, 2); // [B, patches, hidden]
    const at::Tensor classes = class_embedding.expand({batch, 1, -1});
    return at::cat({classes, patches}, 1) + position_embedding->weight; // [B, 1 + patches, hidden]
}

CLIPAttentionImpl::CLIPAttentionImpl(const CLIPVisionConfig& config,
                                     const c10::TensorOptions& options)
    : heads_(config.num_attention_heads)
    , head_dim_(config.head_dim()) {
    const std::int64_t dim = config.hidden_size;
    k_proj = register_module("k_proj", make_linear(dim, dim, true, options));
    v_proj = register_module("v_proj", make_linear(dim, dim, true, options));
    q_proj = register_module("q_proj", make_linear(dim, dim, true, options));
    out_proj = register_module("out_proj", make_linear(dim, dim, true, options));
}

at::Tensor CLIPAttentionImpl::forward(const at::Tensor& hidden) {
    const std::int64_t batch = hidden.size(0);
    const std::int64_t length = hidden.size(1);
    auto heads = [&](const at::Tensor& x) {
        return x.view({batch, length, heads_, head_dim_}).transpose(1, 2); // [B, H, L, d]
    };
    // softmax(q k^T / sqrt(head_dim)) v: CLIP's scale is head_dim^-0.5, the kernel's default.
    const at::Tensor context = core::scaled_dot_product_attention(heads(q_proj->forward(hidden)),
                                                                  heads(k_proj->forward(hidden)),
                                                                  heads(v_proj->forward(hidden)));
    return out_proj->forward(
        context.transpose(1, 2).reshape({batch, length, heads_ * head_dim_})); // [B, L, hidden]
}

at::Tensor clip_activation(const std::string& name, const at::Tensor& x) {
    if (name == "gelu") {
        return at::gelu(x);
    }
    if (name == "quick_gelu") {
        return x * at::sigmoid(1.702 * x);
    }
    if (name == "gelu_new") {
        return gelu_new(x);
    }
    if (name == "gelu_pytorch_tanh") {
        return at::gelu(x, "tanh");
    }
    throw Error(ErrorCode::Unsupported, "hidden_act \"" + name + "\" is not supported.",
                "CLIP image encoders use \"gelu\" or \"quick_gelu\".");
}

CLIPMLPImpl::CLIPMLPImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options)
    : activation_(config.hidden_act) {
    fc1 = register_module("fc1",
                          make_linear(config.hidden_size, config.intermediate_size, true, options));
    fc2 = register_module("fc2",
                          make_linear(config.intermediate_size, config.hidden_size, true, options));
}

at::Tensor CLIPMLPImpl::forward(const at::Tensor& hidden) {
    return fc2->forward(clip_activation(activation_, fc1->forward(hidden)));
}

CLIPEncoderLayerImpl::CLIPEncoderLayerImpl(const CLIPVisionConfig& config,
                                           const c10::TensorOptions& options) {
    self_attn = register_module("self_attn", CLIPAttention(config, options));
    layer_norm1 = register_module(
        "layer_norm1", make_layer_norm(config.hidden_size, config.layer_norm_eps, options));
    mlp = register_module("mlp", CLIPMLP(config, options));
    layer_norm2 = register_module(
        "layer_norm2", make_layer_norm(config.hidden_size, config.layer_norm_eps, options));
}

at::Tensor CLIPEncoderLayerImpl::forward(const at::Tensor& hidden) {
    const at::Tensor attended = hidden + self_attn->forward(layer_norm1->forward(hidden));
    return attended + mlp->forward(layer_norm2->forward(attended));
}

CLIPEncoderImpl::CLIPEncoderImpl(const CLIPVisionConfig& config,
                                 const c10::TensorOptions& options) {
    layers = register_module("layers", torch::nn::ModuleList());
    for (std::int64_t i = 0; i < config.num_hidden_layers; ++i) {
        layers_.emplace_back(config, options);
        layers->push_back(layers_.back());
    }
}

const at::Tensor& CLIPVisionOutput::penultimate_hidden_state() const {
    return hidden_states.at(hidden_states.size() - 2);
}

CLIPVisionTransformerImpl::CLIPVisionTransformerImpl(const CLIPVisionConfig& config,
                                                     const c10::TensorOptions& options) {
    embeddings = register_module("embeddings", CLIPVisionEmbeddings(config, options));
    pre_layrnorm = register_module(
        "pre_layrnorm", make_layer_norm(config.hidden_size, config.layer_norm_eps, options));
    encoder = register_module("encoder", CLIPEncoder(config, options));
    post_layernorm = register_module(
        "post_layernorm", make_layer_norm(config.hidden_size, config.layer_norm_eps, options));
}

std::vector<at::Tensor> CLIPVisionTransformerImpl::hidden_states(const at::Tensor& pixel_values,
                                                                 std::int64_t layers) {
    std::vector<at::Tensor> states;
    states.push_back(pre_layrnorm->forward(embeddings->forward(pixel_values)));
    auto& list = encoder->layer_list();
    for (std::int64_t i = 0; i < layers; ++i) {
        states.push_back(list[static_cast<std::size_t>(i)]->forward(states.back()));
    }
    return states;
}

CLIPVisionModelWithProjectionImpl::CLIPVisionModelWithProjectionImpl(
    const CLIPVisionConfig& config, const WeightsPlacement& placement)
    : config_(config)
    , placement_(placement) {
    check_placement(placement);
    vision_model =
        register_module("vision_model", CLIPVisionTransformer(config, placement.options()));
    if (config.with_projection) {
        visual_projection = register_module(
            "visual_projection",
            make_linear(config.hidden_size, config.projection_dim, false, placement.options()));
    }
}

at::Tensor CLIPVisionModelWithProjectionImpl::checked_pixels(const at::Tensor& pixel_values) const {
    const std::int64_t size = config_.image_size;
    if (pixel_values.dim() != 4 || pixel_values.size(1) != config_.num_channels ||
        pixel_values.size(2) != size || pixel_values.size(3) != size ||
        !at::isFloatingType(pixel_values.scalar_type())) {
        throw Error(ErrorCode::BadInput,
                    "pixel_values must be a float [batch, " + std::to_string(config_.num_channels) +
                        ", " + std::to_string(size) + ", " + std::to_string(size) +
                        "] tensor for this image encoder, not " +
                        std::string(c10::toString(pixel_values.scalar_type())) + " " +
                        c10::str(pixel_values.sizes()) + ".",
                    "Prepare the image with the pipeline's CLIPImageProcessor "
                    "(image_processor/preprocessor_config.json).");
    }
    return pixel_values.to(placement_.device, placement_.dtype);
}

CLIPVisionOutput CLIPVisionModelWithProjectionImpl::forward(const at::Tensor& pixel_values) {
    CLIPVisionOutput output;
    output.hidden_states =
        vision_model->hidden_states(checked_pixels(pixel_values), config_.num_hidden_layers);
    output.last_hidden_state = output.hidden_states.back();
    output.pooler_output =
        vision_model->post_layernorm->forward(output.last_hidden_state.select(1, 0));
    if (visual_projection) {
        output.image_embeds = visual_projection->forward(output.pooler_output);
    }
    return output;
}

at::Tensor CLIPVisionModelWithProjectionImpl::encode_image(const at::Tensor& pixel_values) {
    // The config guarantees at least one layer.
    return vision_model->hidden_states(checked_pixels(pixel_values), config_.num_hidden_layers - 1)
        .back();
}

CLIPVisionModelWithProjection load_clip_vision_model(const std::filesystem::path& folder,
                                                     const WeightsPlacement& placement) {
    const auto config_path = folder / "config.json";
    if (!std::filesystem::exists(config_path)) {
        throw Error(ErrorCode::BadInput, "'" + folder.string() + "' has no config.json.",
                    "Point at the image_encoder/ folder of a Wan image-to-video pipeline.");
    }
    const CLIPVisionConfig config =
        CLIPVisionConfig::from_json(core::read_json_file(config_path), config_path.string());
    const core::SafetensorsCheckpoint checkpoint(folder);
    auto model = [&] {
        const lora::SkipInitGuard every_tensor_comes_from_the_file;
        return CLIPVisionModelWithProjection(config, placement);
    }();
    WeightLoadRules rules;
    // A CLIPModel folder also holds the text tower; old files keep the position_ids buffer.
    rules.ignored_prefixes = {"text_model.", "text_projection.", "logit_scale",
                              "vision_model.embeddings.position_ids"};
    load_module_weights(*model, checkpoint, rules);
    model->eval();
    return model;
}

} // namespace tuneframe::models::clip
