#pragma once

#include "engine/lora/lora_linear.h"
#include "engine/models/layers/timestep_embedding.h"
#include "engine/models/wan/normalization.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/pimpl.h>

#include <array>
#include <cstdint>
#include <optional>

// Ports of the embeddings in diffusers' transformer_wan.py (and the PixArtAlphaTextProjection
// and FeedForward they build from models/embeddings.py and models/attention.py).
namespace tuneframe::models::wan {

// Rotary tables for the video tokens, [1, tokens, 1, head_dim] float32, in token order (frame,
// row, column), each channel pair's value repeated for both channels of the pair.
struct RotaryTables {
    at::Tensor cos;
    at::Tensor sin;
};

// WanRotaryPosEmbed: the head dim split into frame / row / column parts (h = w = 2 *
// (head_dim / 6), t the rest), each a 1-D rotary table over max_seq_len positions built in
// float64 and cast to float32, as diffusers does. Holds no parameters; the tables are CPU
// members rather than buffers (diffusers' are not persistent, so never in a checkpoint).
class WanRotaryPosEmbedImpl : public torch::nn::Module {
public:
    WanRotaryPosEmbedImpl(std::int64_t attention_head_dim, std::int64_t max_seq_len,
                          double theta = 10000.0);

    // Tables for a grid of frames x height x width patches (on the CPU).
    RotaryTables forward(std::int64_t frames, std::int64_t height, std::int64_t width) const;

    std::int64_t max_seq_len() const { return max_seq_len_; }

private:
    std::int64_t max_seq_len_;
    std::array<std::int64_t, 3> split_sizes_; // t, h, w channels
    at::Tensor freqs_cos_;                    // [max_seq_len, head_dim]
    at::Tensor freqs_sin_;
};
TORCH_MODULE(WanRotaryPosEmbed);

// Rotates channel pairs of x [B, tokens, heads, head_dim] by the tables' angles; the result in
// x's dtype (computed in float32 for bf16 inputs, as the float32 tables promote it).
at::Tensor apply_rotary_emb(const at::Tensor& x, const RotaryTables& rotary);

// PixArtAlphaTextProjection with act_fn "gelu_tanh": linear_1 -> tanh-GELU -> linear_2.
class PixArtAlphaTextProjectionImpl : public torch::nn::Module {
public:
    PixArtAlphaTextProjectionImpl(std::int64_t in_features, std::int64_t hidden_size);
    at::Tensor forward(const at::Tensor& caption);

    lora::LoRALinear linear_1{nullptr};
    lora::LoRALinear linear_2{nullptr};
};
TORCH_MODULE(PixArtAlphaTextProjection);

// diffusers' GELU activation module with approximate "none": a projection, then exact GELU.
class ExactGELUImpl : public torch::nn::Module {
public:
    ExactGELUImpl(std::int64_t dim_in, std::int64_t dim_out);
    at::Tensor forward(const at::Tensor& x);

    lora::LoRALinear proj{nullptr};
};
TORCH_MODULE(ExactGELU);

// FeedForward(dim, dim_out, mult=1, activation_fn="gelu") as WanImageEmbedding builds it:
// net = [GELU (net.0.proj: dim -> dim), Dropout, Linear (net.2: dim -> dim_out)].
class ImageFeedForwardImpl : public torch::nn::Module {
public:
    ImageFeedForwardImpl(std::int64_t dim, std::int64_t dim_out);
    at::Tensor forward(const at::Tensor& x);

    torch::nn::ModuleList net{nullptr};

private:
    ExactGELU act_{nullptr};
    torch::nn::Dropout dropout_{nullptr};
    lora::LoRALinear out_{nullptr};
};
TORCH_MODULE(ImageFeedForward);

// WanImageEmbedding: FP32 LayerNorm, GELU MLP, FP32 LayerNorm over the CLIP tokens; FLF2V adds
// a learned position table over both images' tokens.
class WanImageEmbeddingImpl : public torch::nn::Module {
public:
    WanImageEmbeddingImpl(std::int64_t in_features, std::int64_t out_features,
                          std::optional<std::int64_t> pos_embed_seq_len);
    // [B, tokens, in_features] (FLF2V: [2B, tokens, in]) -> [B, tokens', out_features].
    at::Tensor forward(const at::Tensor& encoder_hidden_states_image);

    FP32LayerNorm norm1{nullptr};
    ImageFeedForward ff{nullptr};
    FP32LayerNorm norm2{nullptr};
    at::Tensor pos_embed; // [1, pos_embed_seq_len, in_features]; FLF2V only
};
TORCH_MODULE(WanImageEmbedding);

// WanTimeTextImageEmbedding: sinusoidal timestep features -> time_embedder -> temb, and
// SiLU -> time_proj -> the blocks' six modulation vectors; the text (and image) projections.
class WanTimeTextImageEmbeddingImpl : public torch::nn::Module {
public:
    WanTimeTextImageEmbeddingImpl(std::int64_t dim, std::int64_t time_freq_dim,
                                  std::int64_t time_proj_dim, std::int64_t text_embed_dim,
                                  std::optional<std::int64_t> image_embed_dim,
                                  std::optional<std::int64_t> pos_embed_seq_len);

    struct Output {
        at::Tensor temb;                        // [B, D] or per token [B, tokens, D]
        at::Tensor timestep_proj;               // [B, 6D] or [B, tokens, 6D]
        at::Tensor encoder_hidden_states;       // [B, L, D]
        at::Tensor encoder_hidden_states_image; // [B, image tokens, D]; undefined without
    };
    // `timestep` [B] or flattened per-token [B * timestep_seq_len] (with timestep_seq_len set).
    // The time embedding runs in the layers' dtype, its output in encoder_hidden_states's.
    Output forward(const at::Tensor& timestep, const at::Tensor& encoder_hidden_states,
                   const at::Tensor& encoder_hidden_states_image = {},
                   std::optional<std::int64_t> timestep_seq_len = std::nullopt);

    TimestepEmbedding time_embedder{nullptr};
    lora::LoRALinear time_proj{nullptr};
    PixArtAlphaTextProjection text_embedder{nullptr};
    WanImageEmbedding image_embedder{nullptr}; // I2V only

private:
    std::int64_t time_freq_dim_;
};
TORCH_MODULE(WanTimeTextImageEmbedding);

} // namespace tuneframe::models::wan
