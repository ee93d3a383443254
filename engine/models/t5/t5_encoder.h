#pragma once

// transformers' T5EncoderModel (models/t5/modeling_t5.py), T5 v1.1 flavour: RMS layer norm,
// gated tanh-GELU feed-forward, relative position buckets in block 0, unscaled attention
// scores, no biases. Parameter names equal the checkpoint keys (encoder.block.0.layer.0.
// SelfAttention.q.weight, ...). Inference only: dropout is left out.
//
// The same class is transformers' UMT5EncoderModel (models/umt5/modeling_umt5.py, Wan's text
// encoder): UMT5 differs only in giving every block its own relative position table, which
// T5Config::position_bias_per_layer says. Scaling, gelu_new, the RMS norms and their eps, the
// fp16 clamp, the fp32 `wo` under fp16 and the additive mask are the same code upstream.

#include "engine/models/module_weights.h"

#include <nlohmann/json.hpp>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <filesystem>
#include <optional>
#include <string>

namespace tuneframe::models {

struct T5Config {
    std::int64_t vocab_size = 32128;
    std::int64_t d_model = 4096;
    std::int64_t d_kv = 64;
    std::int64_t d_ff = 10240;
    std::int64_t num_layers = 24;
    std::int64_t num_heads = 64;
    std::int64_t relative_attention_num_buckets = 32;
    std::int64_t relative_attention_max_distance = 128;
    double layer_norm_epsilon = 1e-6;
    std::string feed_forward_proj = "gated-gelu"; // the only kind T5 v1.1 uses
    bool tie_word_embeddings = false; // affects T5's LM head only; the encoder is the same
    std::int64_t pad_token_id = 0;
    std::int64_t eos_token_id = 1;
    // UMT5 (model_type "umt5"): each block has its own relative_attention_bias and computes its
    // own position bias; T5 shares block 0's.
    bool position_bias_per_layer = false;

    // `origin` names the file in errors (".../text_encoder/config.json").
    static T5Config from_json(const nlohmann::json& json, const std::string& origin);
    // The config.json transformers writes for a T5EncoderModel (a UMT5EncoderModel when
    // position_bias_per_layer).
    nlohmann::json to_json() const;
    std::string model_type() const { return position_bias_per_layer ? "umt5" : "t5"; }
};

// nn.Linear without bias, allocated but not initialised: weights come from a checkpoint.
class T5LinearImpl : public torch::nn::Module {
public:
    T5LinearImpl(std::int64_t in_features, std::int64_t out_features,
                 const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input) const;
    at::Tensor weight;
};
TORCH_MODULE(T5Linear);

class T5EmbeddingImpl : public torch::nn::Module {
public:
    T5EmbeddingImpl(std::int64_t count, std::int64_t dim, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& ids) const;
    at::Tensor weight;
};
TORCH_MODULE(T5Embedding);

// RMS norm without mean subtraction or bias; the statistic in fp32.
class T5LayerNormImpl : public torch::nn::Module {
public:
    T5LayerNormImpl(std::int64_t dim, double eps, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& hidden) const;
    at::Tensor weight;

private:
    double eps_;
};
TORCH_MODULE(T5LayerNorm);

class T5AttentionImpl : public torch::nn::Module {
public:
    T5AttentionImpl(const T5Config& config, bool has_relative_attention_bias,
                    const c10::TensorOptions& options);
    // position_bias: [1 or B, heads, L, L], mask already added.
    at::Tensor forward(const at::Tensor& hidden, const at::Tensor& position_bias) const;
    // [1, heads, query_length, key_length] from the bucketed relative positions.
    at::Tensor compute_bias(std::int64_t query_length, std::int64_t key_length) const;

private:
    std::int64_t heads_;
    std::int64_t head_dim_;
    std::int64_t num_buckets_;
    std::int64_t max_distance_;
    T5Linear q_{nullptr}, k_{nullptr}, v_{nullptr}, o_{nullptr};
    T5Embedding relative_attention_bias_{nullptr};
};
TORCH_MODULE(T5Attention);

// Bidirectional bucket of each relative position (key - query), as T5 computes it.
at::Tensor t5_relative_position_bucket(const at::Tensor& relative_position,
                                       std::int64_t num_buckets, std::int64_t max_distance);

class T5LayerSelfAttentionImpl : public torch::nn::Module {
public:
    T5LayerSelfAttentionImpl(const T5Config& config, bool has_relative_attention_bias,
                             const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& hidden, const at::Tensor& position_bias) const;
    const T5Attention& attention() const { return SelfAttention_; }

private:
    T5Attention SelfAttention_{nullptr};
    T5LayerNorm layer_norm_{nullptr};
};
TORCH_MODULE(T5LayerSelfAttention);

class T5DenseGatedActDenseImpl : public torch::nn::Module {
public:
    // `wo_options`: transformers keeps `wo` in fp32 when the model is loaded in fp16.
    T5DenseGatedActDenseImpl(const T5Config& config, const c10::TensorOptions& options,
                             const c10::TensorOptions& wo_options);
    at::Tensor forward(const at::Tensor& hidden) const;

private:
    T5Linear wi_0_{nullptr}, wi_1_{nullptr}, wo_{nullptr};
};
TORCH_MODULE(T5DenseGatedActDense);

// transformers' NewGELUActivation, op for op: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
at::Tensor gelu_new(const at::Tensor& x);

class T5LayerFFImpl : public torch::nn::Module {
public:
    T5LayerFFImpl(const T5Config& config, const c10::TensorOptions& options,
                  const c10::TensorOptions& wo_options);
    at::Tensor forward(const at::Tensor& hidden) const;

private:
    T5DenseGatedActDense DenseReluDense_{nullptr};
    T5LayerNorm layer_norm_{nullptr};
};
TORCH_MODULE(T5LayerFF);

class T5BlockImpl : public torch::nn::Module {
public:
    T5BlockImpl(const T5Config& config, bool has_relative_attention_bias,
                const c10::TensorOptions& options, const c10::TensorOptions& wo_options);
    at::Tensor forward(const at::Tensor& hidden, const at::Tensor& position_bias) const;
    const T5Attention& attention() const { return self_attention_->attention(); }

private:
    torch::nn::ModuleList layer_; // 0: T5LayerSelfAttention, 1: T5LayerFF
    T5LayerSelfAttention self_attention_{nullptr};
    T5LayerFF feed_forward_{nullptr};
};
TORCH_MODULE(T5Block);

class T5StackImpl : public torch::nn::Module {
public:
    T5StackImpl(const T5Config& config, const c10::TensorOptions& options,
                const c10::TensorOptions& wo_options);
    // embeds: [B, L, d_model]; attention_mask: [B, L] of 1/0, or undefined for none.
    at::Tensor forward(const at::Tensor& embeds, const at::Tensor& attention_mask) const;

private:
    // `bias` [1, H, L, L] plus the mask as T5 adds it: (1 - mask) * finfo.min.
    static at::Tensor with_mask(const at::Tensor& bias, const at::Tensor& additive_mask);

    torch::nn::ModuleList block_;
    std::vector<T5Block> blocks_;
    T5LayerNorm final_layer_norm_{nullptr};
    bool position_bias_per_layer_ = false;
};
TORCH_MODULE(T5Stack);

class T5EncoderModelImpl : public torch::nn::Module {
public:
    T5EncoderModelImpl(const T5Config& config, const WeightsPlacement& placement);

    // input_ids: [B, L] int64. attention_mask: [B, L] or undefined; CogVideoX pipelines pass
    // none, so pad positions take part in attention; Wan's pass the tokenizer's mask. Returns
    // last_hidden_state [B, L, d_model].
    at::Tensor forward(const at::Tensor& input_ids, const at::Tensor& attention_mask = {}) const;

    const T5Config& config() const { return config_; }
    const WeightsPlacement& placement() const { return placement_; }

private:
    T5Config config_;
    WeightsPlacement placement_;
    T5Embedding shared_{nullptr}; // encoder.embed_tokens is the same module (tied)
    T5Stack encoder_{nullptr};
};
TORCH_MODULE(T5EncoderModel);

// Reads a `text_encoder/` folder of a T5 or UMT5 encoder: config.json and model.safetensors or
// a sharded index. The token embedding may be stored as shared.weight,
// encoder.embed_tokens.weight or both; where both differ (transformers 5 with untied
// embeddings), encoder.embed_tokens is the one the encoder uses.
T5EncoderModel load_t5_encoder(const std::filesystem::path& folder,
                               const WeightsPlacement& placement = {});

} // namespace tuneframe::models
