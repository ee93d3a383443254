#pragma once

// transformers' CLIPVisionModelWithProjection (models/clip/modeling_clip.py): a pre-LayerNorm
// ViT whose hidden states Wan's I2V pipelines take (encode_image keeps hidden_states[-2]), and
// the projection of the post-LayerNormed class token. Parameter names equal the checkpoint keys
// (vision_model.embeddings.class_embedding, vision_model.pre_layrnorm.weight (sic),
// vision_model.encoder.layers.0.self_attn.q_proj.weight, visual_projection.weight, ...); every
// Linear is a lora::LoRALinear. Inference only: dropout is left out.

#include "engine/lora/lora_linear.h"
#include "engine/models/clip/clip_vision_config.h"
#include "engine/models/module_weights.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <filesystem>
#include <vector>

namespace tuneframe::models::clip {

// Class token, then one token per patch (row by row), plus the learned position table.
class CLIPVisionEmbeddingsImpl : public torch::nn::Module {
public:
    CLIPVisionEmbeddingsImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    // pixel_values [B, C, S, S] -> [B, 1 + (S/patch)^2, hidden]
    at::Tensor forward(const at::Tensor& pixel_values);

    at::Tensor class_embedding; // [hidden]
    torch::nn::Conv2d patch_embedding{nullptr};
    torch::nn::Embedding position_embedding{nullptr};
};
TORCH_MODULE(CLIPVisionEmbeddings);

class CLIPAttentionImpl : public torch::nn::Module {
public:
    CLIPAttentionImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& hidden); // [B, L, hidden]

    lora::LoRALinear k_proj{nullptr}, v_proj{nullptr}, q_proj{nullptr}, out_proj{nullptr};

private:
    std::int64_t heads_;
    std::int64_t head_dim_;
};
TORCH_MODULE(CLIPAttention);

class CLIPMLPImpl : public torch::nn::Module {
public:
    CLIPMLPImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& hidden);

    lora::LoRALinear fc1{nullptr}, fc2{nullptr};

private:
    std::string activation_;
};
TORCH_MODULE(CLIPMLP);

// hidden_act by name: "gelu" (erf), "quick_gelu" (x * sigmoid(1.702 x)), "gelu_new" and
// "gelu_pytorch_tanh" (tanh approximation).
at::Tensor clip_activation(const std::string& name, const at::Tensor& x);

class CLIPEncoderLayerImpl : public torch::nn::Module {
public:
    CLIPEncoderLayerImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& hidden);

    CLIPAttention self_attn{nullptr};
    torch::nn::LayerNorm layer_norm1{nullptr};
    CLIPMLP mlp{nullptr};
    torch::nn::LayerNorm layer_norm2{nullptr};
};
TORCH_MODULE(CLIPEncoderLayer);

class CLIPEncoderImpl : public torch::nn::Module {
public:
    CLIPEncoderImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    std::vector<CLIPEncoderLayer>& layer_list() { return layers_; }

    torch::nn::ModuleList layers{nullptr};

private:
    std::vector<CLIPEncoderLayer> layers_;
};
TORCH_MODULE(CLIPEncoder);

struct CLIPVisionOutput {
    // num_hidden_layers + 1 tensors [B, tokens, hidden]: [0] the embeddings after pre_layrnorm,
    // then each layer's output.
    std::vector<at::Tensor> hidden_states;
    at::Tensor last_hidden_state; // hidden_states.back(); no post_layernorm (as upstream)
    at::Tensor pooler_output;     // post_layernorm of the class token, [B, hidden]
    at::Tensor image_embeds;      // visual_projection(pooler_output), [B, projection_dim]

    // hidden_states[-2]: what WanImageToVideoPipeline.encode_image gives the transformer.
    const at::Tensor& penultimate_hidden_state() const;
};

class CLIPVisionTransformerImpl : public torch::nn::Module {
public:
    CLIPVisionTransformerImpl(const CLIPVisionConfig& config, const c10::TensorOptions& options);
    // Runs the first `layers` encoder layers; hidden_states holds layers + 1 entries.
    std::vector<at::Tensor> hidden_states(const at::Tensor& pixel_values, std::int64_t layers);

    CLIPVisionEmbeddings embeddings{nullptr};
    torch::nn::LayerNorm pre_layrnorm{nullptr}; // transformers' spelling, kept for the keys
    CLIPEncoder encoder{nullptr};
    torch::nn::LayerNorm post_layernorm{nullptr};
};
TORCH_MODULE(CLIPVisionTransformer);

class CLIPVisionModelWithProjectionImpl : public torch::nn::Module {
public:
    CLIPVisionModelWithProjectionImpl(const CLIPVisionConfig& config,
                                      const WeightsPlacement& placement);

    // pixel_values [B, C, image_size, image_size] (CLIPImageProcessor's output), any float
    // dtype and device: converted to the placement's.
    CLIPVisionOutput forward(const at::Tensor& pixel_values);
    // hidden_states[-2] alone, without running the last layer: Wan's image embedding,
    // [B, 1 + patches, hidden] in the placement's dtype.
    at::Tensor encode_image(const at::Tensor& pixel_values);

    const CLIPVisionConfig& config() const { return config_; }
    const WeightsPlacement& placement() const { return placement_; }

    CLIPVisionTransformer vision_model{nullptr};
    lora::LoRALinear visual_projection{nullptr}; // absent for a CLIPVisionModel

private:
    at::Tensor checked_pixels(const at::Tensor& pixel_values) const;

    CLIPVisionConfig config_;
    WeightsPlacement placement_;
};
TORCH_MODULE(CLIPVisionModelWithProjection);

// Reads an `image_encoder/` folder: config.json and model.safetensors (or a sharded index), as
// CLIPVisionModelWithProjection or CLIPVisionModel save_pretrained them; a whole CLIPModel's
// folder also loads, its text tower ignored.
CLIPVisionModelWithProjection load_clip_vision_model(const std::filesystem::path& folder,
                                                     const WeightsPlacement& placement = {});

} // namespace tuneframe::models::clip
