#include "engine/models/t5/t5_encoder.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <string_view>

namespace tuneframe::models {
namespace {

using core::Error;
using core::ErrorCode;

// The residual stream of an fp16 T5 is clamped after each layer so that an overflow to inf
// does not spread (T5Block).
at::Tensor clamp_fp16(const at::Tensor& hidden) {
    if (hidden.scalar_type() != c10::kHalf) {
        return hidden;
    }
    constexpr double kHalfMax = 65504.0;
    const double limit = at::isinf(hidden).any().item<bool>() ? kHalfMax - 1000 : kHalfMax;
    return at::clamp(hidden, -limit, limit);
}

// "t5" or "umt5" from model_type, or from architectures where a hand-written config has no
// model_type. mT5 is T5 v1.1 with another vocabulary, so it reads as "t5".
std::string encoder_model_type(const core::JsonFields& fields, const nlohmann::json& json) {
    if (auto type = fields.maybe<std::string>("model_type")) {
        return *type == "mt5" ? "t5" : *type;
    }
    if (auto architectures = json.find("architectures");
        architectures != json.end() && architectures->is_array()) {
        for (const auto& name : *architectures) {
            if (name.is_string() && name.get<std::string>().rfind("UMT5", 0) == 0) {
                return "umt5";
            }
        }
    }
    return "t5";
}

} // namespace

T5Config T5Config::from_json(const nlohmann::json& json, const std::string& origin) {
    core::JsonFields fields(json, origin);
    const std::string type = encoder_model_type(fields, json);
    if (type != "t5" && type != "umt5") {
        throw Error(ErrorCode::BadInput,
                    origin + ": model_type is \"" + type +
                        "\"; a text encoder here is T5 (\"t5\", CogVideoX) or UMT5 (\"umt5\", "
                        "Wan).",
                    "Point at the text_encoder/ folder of a CogVideoX or Wan pipeline.");
    }
    T5Config config;
    config.vocab_size = fields.required<std::int64_t>("vocab_size");
    config.d_model = fields.required<std::int64_t>("d_model");
    config.d_kv = fields.required<std::int64_t>("d_kv");
    config.d_ff = fields.required<std::int64_t>("d_ff");
    config.num_layers = fields.required<std::int64_t>("num_layers");
    config.num_heads = fields.required<std::int64_t>("num_heads");
    config.relative_attention_num_buckets =
        fields.optional<std::int64_t>("relative_attention_num_buckets", 32);
    config.relative_attention_max_distance =
        fields.optional<std::int64_t>("relative_attention_max_distance", 128);
    config.layer_norm_epsilon = fields.optional<double>("layer_norm_epsilon", 1e-6);
    config.position_bias_per_layer = type == "umt5";
    // UMT5Config defaults to gated-gelu, T5Config to relu.
    config.feed_forward_proj =
        fields.optional<std::string>("feed_forward_proj", type == "umt5" ? "gated-gelu" : "relu");
    config.tie_word_embeddings = fields.optional<bool>("tie_word_embeddings", true);
    config.pad_token_id = fields.optional<std::int64_t>("pad_token_id", 0);
    config.eos_token_id = fields.optional<std::int64_t>("eos_token_id", 1);
    if (config.feed_forward_proj != "gated-gelu") {
        throw Error(ErrorCode::Unsupported,
                    origin + ": feed_forward_proj \"" + config.feed_forward_proj +
                        "\" is not supported; only T5 v1.1's and UMT5's \"gated-gelu\" is.",
                    "CogVideoX uses google/t5-v1_1-xxl and Wan google/umt5-xxl; point at the "
                    "pipeline's text_encoder/ folder.");
    }
    using Field = std::pair<std::int64_t, const char*>;
    for (const auto& [value, name] : std::initializer_list<Field>{
             {config.d_model, "d_model"},
             {config.d_kv, "d_kv"},
             {config.d_ff, "d_ff"},
             {config.num_heads, "num_heads"},
             {config.num_layers, "num_layers"},
             {config.vocab_size, "vocab_size"},
             {config.relative_attention_num_buckets, "relative_attention_num_buckets"}}) {
        if (value <= 0) {
            throw Error(ErrorCode::BadInput,
                        origin + ": \"" + name + "\" must be positive, not " +
                            std::to_string(value) + ".",
                        "Restore config.json from the model's download.");
        }
    }
    return config;
}

nlohmann::json T5Config::to_json() const {
    nlohmann::json json = {
        {"architectures", {position_bias_per_layer ? "UMT5EncoderModel" : "T5EncoderModel"}},
        {"model_type", model_type()},
        {"vocab_size", vocab_size},
        {"d_model", d_model},
        {"d_kv", d_kv},
        {"d_ff", d_ff},
        {"num_layers", num_layers},
        {"num_decoder_layers", num_layers},
        {"num_heads", num_heads},
        {"relative_attention_num_buckets", relative_attention_num_buckets},
        {"relative_attention_max_distance", relative_attention_max_distance},
        {"layer_norm_epsilon", layer_norm_epsilon},
        {"feed_forward_proj", feed_forward_proj},
        {"dense_act_fn", "gelu_new"},
        {"is_gated_act", true},
        {"dropout_rate", 0.1},
        {"initializer_factor", 1.0},
        {"is_encoder_decoder", true},
        {"tie_word_embeddings", tie_word_embeddings},
        {"pad_token_id", pad_token_id},
        {"eos_token_id", eos_token_id},
        {"torch_dtype", "float32"},
        {"use_cache", true}};
    if (position_bias_per_layer) {
        // UMT5Config's own fields, as save_pretrained writes them.
        json["classifier_dropout"] = 0.0;
        json["decoder_start_token_id"] = 0;
        json["tokenizer_class"] = "T5Tokenizer";
    }
    return json;
}

T5LinearImpl::T5LinearImpl(std::int64_t in_features, std::int64_t out_features,
                           const c10::TensorOptions& options)
    : weight(register_parameter("weight", torch::empty({out_features, in_features}, options))) {}

at::Tensor T5LinearImpl::forward(const at::Tensor& input) const {
    return at::linear(input, weight);
}

T5EmbeddingImpl::T5EmbeddingImpl(std::int64_t count, std::int64_t dim,
                                 const c10::TensorOptions& options)
    : weight(register_parameter("weight", torch::empty({count, dim}, options))) {}

at::Tensor T5EmbeddingImpl::forward(const at::Tensor& ids) const {
    return at::embedding(weight, ids);
}

T5LayerNormImpl::T5LayerNormImpl(std::int64_t dim, double eps, const c10::TensorOptions& options)
    : weight(register_parameter("weight", torch::empty({dim}, options)))
    , eps_(eps) {}

at::Tensor T5LayerNormImpl::forward(const at::Tensor& hidden) const {
    const at::Tensor variance = hidden.to(c10::kFloat).pow(2).mean(-1, true);
    at::Tensor normed = hidden * at::rsqrt(variance + eps_);
    if (weight.scalar_type() == c10::kHalf || weight.scalar_type() == c10::kBFloat16) {
        normed = normed.to(weight.scalar_type());
    }
    return weight * normed;
}

at::Tensor t5_relative_position_bucket(const at::Tensor& relative_position,
                                       std::int64_t num_buckets, std::int64_t max_distance) {
    // Half the buckets for keys after the query; within each half, exact offsets below
    // max_exact and log-spaced ones up to max_distance.
    num_buckets /= 2;
    at::Tensor buckets = (relative_position > 0).to(c10::kLong) * num_buckets;
    const at::Tensor distance = relative_position.abs();
    const std::int64_t max_exact = num_buckets / 2;
    at::Tensor large =
        max_exact + (at::log(distance.to(c10::kFloat) / max_exact) /
                     std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)) *
                     (num_buckets - max_exact))
                        .to(c10::kLong);
    large = at::min(large, at::full_like(large, num_buckets - 1));
    return buckets + at::where(distance < max_exact, distance, large);
}

T5AttentionImpl::T5AttentionImpl(const T5Config& config, bool has_relative_attention_bias,
                                 const c10::TensorOptions& options)
    : heads_(config.num_heads)
    , head_dim_(config.d_kv)
    , num_buckets_(config.relative_attention_num_buckets)
    , max_distance_(config.relative_attention_max_distance) {
    const std::int64_t inner = heads_ * head_dim_;
    q_ = register_module("q", T5Linear(config.d_model, inner, options));
    k_ = register_module("k", T5Linear(config.d_model, inner, options));
    v_ = register_module("v", T5Linear(config.d_model, inner, options));
    o_ = register_module("o", T5Linear(inner, config.d_model, options));
    if (has_relative_attention_bias) {
        relative_attention_bias_ =
            register_module("relative_attention_bias", T5Embedding(num_buckets_, heads_, options));
    }
}

at::Tensor T5AttentionImpl::compute_bias(std::int64_t query_length, std::int64_t key_length) const {
    const auto device = relative_attention_bias_->weight.device();
    const auto positions = torch::TensorOptions().dtype(c10::kLong).device(device);
    const at::Tensor context = torch::arange(query_length, positions).unsqueeze(1);
    const at::Tensor memory = torch::arange(key_length, positions).unsqueeze(0);
    const at::Tensor buckets =
        t5_relative_position_bucket(memory - context, num_buckets_, max_distance_);
    return relative_attention_bias_->forward(buckets).permute({2, 0, 1}).unsqueeze(
        0); // [1, H, Lq, Lk]
}

at::Tensor T5AttentionImpl::forward(const at::Tensor& hidden,
                                    const at::Tensor& position_bias) const {
    const std::int64_t batch = hidden.size(0);
    auto heads = [&](const at::Tensor& x) {
        return x.view({batch, -1, heads_, head_dim_}).transpose(1, 2); // [B, H, L, d_kv]
    };
    const at::Tensor query = heads(q_->forward(hidden));
    const at::Tensor key = heads(k_->forward(hidden));
    const at::Tensor value = heads(v_->forward(hidden));
    // T5 folds the 1/sqrt(d) scale into its initialisation, so scores stay unscaled.
    at::Tensor scores = at::matmul(query, key.transpose(3, 2)); // [B, H, L, L]
    scores += position_bias;
    const at::Tensor weights = at::softmax(scores.to(c10::kFloat), -1).to(scores.scalar_type());
    const at::Tensor context = at::matmul(weights, value).transpose(1, 2).contiguous();
    return o_->forward(context.view({batch, -1, heads_ * head_dim_})); // [B, L, d_model]
}

T5LayerSelfAttentionImpl::T5LayerSelfAttentionImpl(const T5Config& config,
                                                   bool has_relative_attention_bias,
                                                   const c10::TensorOptions& options) {
    SelfAttention_ =
        register_module("SelfAttention", T5Attention(config, has_relative_attention_bias, options));
    layer_norm_ = register_module("layer_norm",
                                  T5LayerNorm(config.d_model, config.layer_norm_epsilon, options));
}

at::Tensor T5LayerSelfAttentionImpl::forward(const at::Tensor& hidden,
                                             const at::Tensor& position_bias) const {
    return hidden + SelfAttention_->forward(layer_norm_->forward(hidden), position_bias);
}

at::Tensor gelu_new(const at::Tensor& x) {
    const double sqrt_2_over_pi = std::sqrt(2.0 / M_PI);
    return 0.5 * x * (1.0 + at::tanh(sqrt_2_over_pi * (x + 0.044715 * at::pow(x, 3.0))));
}

T5DenseGatedActDenseImpl::T5DenseGatedActDenseImpl(const T5Config& config,
                                                   const c10::TensorOptions& options,
                                                   const c10::TensorOptions& wo_options) {
    wi_0_ = register_module("wi_0", T5Linear(config.d_model, config.d_ff, options));
    wi_1_ = register_module("wi_1", T5Linear(config.d_model, config.d_ff, options));
    wo_ = register_module("wo", T5Linear(config.d_ff, config.d_model, wo_options));
}

at::Tensor T5DenseGatedActDenseImpl::forward(const at::Tensor& hidden) const {
    at::Tensor gated = gelu_new(wi_0_->forward(hidden)) * wi_1_->forward(hidden); // [B, L, d_ff]
    if (gated.scalar_type() != wo_->weight.scalar_type()) {
        gated = gated.to(wo_->weight.scalar_type());
    }
    return wo_->forward(gated);
}

T5LayerFFImpl::T5LayerFFImpl(const T5Config& config, const c10::TensorOptions& options,
                             const c10::TensorOptions& wo_options) {
    DenseReluDense_ =
        register_module("DenseReluDense", T5DenseGatedActDense(config, options, wo_options));
    layer_norm_ = register_module("layer_norm",
                                  T5LayerNorm(config.d_model, config.layer_norm_epsilon, options));
}

at::Tensor T5LayerFFImpl::forward(const at::Tensor& hidden) const {
    return hidden + DenseReluDense_->forward(layer_norm_->forward(hidden));
}

T5BlockImpl::T5BlockImpl(const T5Config& config, bool has_relative_attention_bias,
                         const c10::TensorOptions& options, const c10::TensorOptions& wo_options)
    : self_attention_(config, has_relative_attention_bias, options)
    , feed_forward_(config, options, wo_options) {
    layer_->push_back(self_attention_);
    layer_->push_back(feed_forward_);
    register_module("layer", layer_);
}

at::Tensor T5BlockImpl::forward(const at::Tensor& hidden, const at::Tensor& position_bias) const {
    const at::Tensor attended = clamp_fp16(self_attention_->forward(hidden, position_bias));
    return clamp_fp16(feed_forward_->forward(attended));
}

T5StackImpl::T5StackImpl(const T5Config& config, const c10::TensorOptions& options,
                         const c10::TensorOptions& wo_options)
    : position_bias_per_layer_(config.position_bias_per_layer) {
    for (std::int64_t i = 0; i < config.num_layers; ++i) {
        // T5: only block 0 owns the relative position table and the others reuse its bias.
        blocks_.emplace_back(config, i == 0 || position_bias_per_layer_, options, wo_options);
        block_->push_back(blocks_.back());
    }
    register_module("block", block_);
    final_layer_norm_ = register_module(
        "final_layer_norm", T5LayerNorm(config.d_model, config.layer_norm_epsilon, options));
}

at::Tensor T5StackImpl::with_mask(const at::Tensor& bias, const at::Tensor& additive_mask) {
    return additive_mask.defined() ? bias + additive_mask : bias;
}

at::Tensor T5StackImpl::forward(const at::Tensor& embeds, const at::Tensor& attention_mask) const {
    const std::int64_t length = embeds.size(1);
    at::Tensor additive_mask;
    if (attention_mask.defined()) {
        // (1 - mask) * finfo.min in the embedding dtype: [B, 1, 1, L].
        const at::Tensor mask = attention_mask.unsqueeze(1).unsqueeze(1).to(embeds.scalar_type());
        const double lowest =
            embeds.scalar_type() == c10::kFloat ? std::numeric_limits<float>::lowest()
            : embeds.scalar_type() == c10::kBFloat16
                ? static_cast<double>(std::numeric_limits<c10::BFloat16>::lowest())
                : static_cast<double>(std::numeric_limits<c10::Half>::lowest());
        additive_mask = (1.0 - mask) * lowest;
    }
    at::Tensor shared_bias;
    if (!position_bias_per_layer_) {
        shared_bias =
            with_mask(blocks_.front()->attention()->compute_bias(length, length), additive_mask);
    }
    at::Tensor hidden = embeds;
    for (const T5Block& block : blocks_) {
        const at::Tensor position_bias =
            position_bias_per_layer_
                ? with_mask(block->attention()->compute_bias(length, length), additive_mask)
                : shared_bias;
        hidden = block->forward(hidden, position_bias);
    }
    return final_layer_norm_->forward(hidden);
}

T5EncoderModelImpl::T5EncoderModelImpl(const T5Config& config, const WeightsPlacement& placement)
    : config_(config)
    , placement_(placement) {
    check_placement(placement);
    const c10::TensorOptions options = placement.options();
    const c10::TensorOptions wo_options =
        placement.dtype == c10::kHalf ? options.dtype(c10::kFloat) : options;
    shared_ = register_module("shared", T5Embedding(config.vocab_size, config.d_model, options));
    encoder_ = register_module("encoder", T5Stack(config, options, wo_options));
}

at::Tensor T5EncoderModelImpl::forward(const at::Tensor& input_ids,
                                       const at::Tensor& attention_mask) const {
    if (input_ids.dim() != 2 || input_ids.scalar_type() != c10::kLong) {
        throw Error(ErrorCode::BadInput,
                    "input_ids must be an int64 [batch, length] tensor, not " +
                        std::string(c10::toString(input_ids.scalar_type())) + " " +
                        c10::str(input_ids.sizes()) + ".",
                    "Tokenize the prompts with 'tuneframe-engine forward tokenize'.");
    }
    if (attention_mask.defined() && attention_mask.sizes() != input_ids.sizes()) {
        throw Error(ErrorCode::BadInput,
                    "attention_mask " + c10::str(attention_mask.sizes()) +
                        " does not match input_ids " + c10::str(input_ids.sizes()) + ".",
                    "Use the mask the tokenizer wrote with the ids, or leave it out.");
    }
    if (input_ids.numel() > 0 && (input_ids.min().item<std::int64_t>() < 0 ||
                                  input_ids.max().item<std::int64_t>() >= config_.vocab_size)) {
        throw Error(ErrorCode::BadInput,
                    "token ids must lie in [0, " + std::to_string(config_.vocab_size) + ").",
                    "Use the tokenizer that belongs to this text encoder.");
    }
    const at::Tensor ids = input_ids.to(placement_.device);
    const at::Tensor mask =
        attention_mask.defined() ? attention_mask.to(placement_.device) : attention_mask;
    return encoder_->forward(shared_->forward(ids), mask);
}

T5EncoderModel load_t5_encoder(const std::filesystem::path& folder,
                               const WeightsPlacement& placement) {
    const auto config_path = folder / "config.json";
    const T5Config config =
        T5Config::from_json(core::read_json_file(config_path), config_path.string());
    T5EncoderModel model(config, placement);
    const core::SafetensorsCheckpoint checkpoint(folder);
    WeightLoadRules rules;
    rules.aliases["shared.weight"] = "encoder.embed_tokens.weight";
    // A full T5 checkpoint also holds the decoder and LM head, which the encoder ignores.
    rules.ignored_prefixes = {"decoder.", "lm_head."};
    load_module_weights(*model, checkpoint, rules);
    // transformers 5 unties encoder.embed_tokens from shared when tie_word_embeddings is false,
    // and the encoder reads encoder.embed_tokens; older files hold the same tensor twice.
    constexpr std::string_view kEmbedTokens = "encoder.embed_tokens.weight";
    if (checkpoint.find("shared.weight") && checkpoint.find(kEmbedTokens)) {
        torch::NoGradGuard no_grad;
        model->named_parameters()["shared.weight"].copy_(
            core::read_tensor(checkpoint.shard_of(kEmbedTokens), checkpoint.at(kEmbedTokens)));
    }
    return model;
}

} // namespace tuneframe::models
