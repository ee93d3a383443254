#include "engine/models/wan/embeddings.h"

#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

using torch::indexing::None;
using torch::indexing::Slice;

// get_1d_rotary_pos_embed(dim, max_seq_len, theta, use_real=True, repeat_interleave_real=True,
// freqs_dtype=float64): angles pos * theta^(-2i/dim) in float64, each cos/sin repeated for the
// pair's two channels, cast to float32.
std::pair<at::Tensor, at::Tensor> rotary_axis(std::int64_t dim, std::int64_t positions,
                                              double theta) {
    const auto float64 = torch::TensorOptions().dtype(torch::kFloat64);
    const at::Tensor exponents = torch::arange(0, dim, 2, float64) / static_cast<double>(dim);
    const at::Tensor freqs = 1.0 / torch::pow(theta, exponents);                      // [dim/2]
    const at::Tensor angles = torch::outer(torch::arange(positions, float64), freqs); // [S, dim/2]
    return {angles.cos().repeat_interleave(2, 1).to(torch::kFloat32),
            angles.sin().repeat_interleave(2, 1).to(torch::kFloat32)};
}

} // namespace

WanRotaryPosEmbedImpl::WanRotaryPosEmbedImpl(std::int64_t attention_head_dim,
                                             std::int64_t max_seq_len, double theta)
    : max_seq_len_(max_seq_len) {
    const std::int64_t h_dim = 2 * (attention_head_dim / 6);
    split_sizes_ = {attention_head_dim - 2 * h_dim, h_dim, h_dim};
    std::vector<at::Tensor> cos;
    std::vector<at::Tensor> sin;
    for (std::int64_t dim : split_sizes_) {
        auto [c, s] = rotary_axis(dim, max_seq_len, theta);
        cos.push_back(c);
        sin.push_back(s);
    }
    freqs_cos_ = torch::cat(cos, 1);
    freqs_sin_ = torch::cat(sin, 1);
}

RotaryTables WanRotaryPosEmbedImpl::forward(std::int64_t frames, std::int64_t height,
                                            std::int64_t width) const {
    const std::array<std::int64_t, 3> grid = {frames, height, width};
    auto table = [&](const at::Tensor& freqs) {
        const std::vector<at::Tensor> axes =
            freqs.split_with_sizes({split_sizes_[0], split_sizes_[1], split_sizes_[2]}, 1);
        std::vector<at::Tensor> parts;
        for (std::size_t axis = 0; axis < 3; ++axis) {
            std::vector<std::int64_t> view = {1, 1, 1, -1};
            view[axis] = grid[axis];
            parts.push_back(axes[axis]
                                .index({Slice(0, grid[axis])})
                                .view(view)
                                .expand({frames, height, width, -1}));
        }
        return torch::cat(parts, -1).reshape({1, frames * height * width, 1, -1});
    };
    return {table(freqs_cos_), table(freqs_sin_)};
}

at::Tensor apply_rotary_emb(const at::Tensor& x, const RotaryTables& rotary) {
    std::vector<std::int64_t> pairs = x.sizes().vec();
    pairs.back() /= 2;
    pairs.push_back(2);
    const at::Tensor paired = x.reshape(pairs);
    const at::Tensor x1 = paired.select(-1, 0);
    const at::Tensor x2 = paired.select(-1, 1);
    const at::Tensor cos = rotary.cos.index({"...", Slice(0, None, 2)});
    const at::Tensor sin = rotary.sin.index({"...", Slice(1, None, 2)});
    return torch::stack({x1 * cos - x2 * sin, x1 * sin + x2 * cos}, -1)
        .flatten(-2)
        .to(x.scalar_type());
}

PixArtAlphaTextProjectionImpl::PixArtAlphaTextProjectionImpl(std::int64_t in_features,
                                                             std::int64_t hidden_size)
    : linear_1(register_module("linear_1", lora::LoRALinear(in_features, hidden_size)))
    , linear_2(register_module("linear_2", lora::LoRALinear(hidden_size, hidden_size))) {}

at::Tensor PixArtAlphaTextProjectionImpl::forward(const at::Tensor& caption) {
    return linear_2->forward(torch::gelu(linear_1->forward(caption), "tanh"));
}

ExactGELUImpl::ExactGELUImpl(std::int64_t dim_in, std::int64_t dim_out)
    : proj(register_module("proj", lora::LoRALinear(dim_in, dim_out))) {}

at::Tensor ExactGELUImpl::forward(const at::Tensor& x) {
    return torch::gelu(proj->forward(x));
}

ImageFeedForwardImpl::ImageFeedForwardImpl(std::int64_t dim, std::int64_t dim_out)
    : act_(dim, dim)
    , dropout_(0.0)
    , out_(dim, dim_out) {
    net = register_module("net", torch::nn::ModuleList(act_, dropout_, out_));
}

at::Tensor ImageFeedForwardImpl::forward(const at::Tensor& x) {
    return out_->forward(dropout_->forward(act_->forward(x)));
}

WanImageEmbeddingImpl::WanImageEmbeddingImpl(std::int64_t in_features, std::int64_t out_features,
                                             std::optional<std::int64_t> pos_embed_seq_len)
    : norm1(register_module("norm1", FP32LayerNorm(in_features, 1e-5, true)))
    , ff(register_module("ff", ImageFeedForward(in_features, out_features)))
    , norm2(register_module("norm2", FP32LayerNorm(out_features, 1e-5, true))) {
    if (pos_embed_seq_len) {
        pos_embed =
            register_parameter("pos_embed", torch::zeros({1, *pos_embed_seq_len, in_features}));
    }
}

at::Tensor WanImageEmbeddingImpl::forward(const at::Tensor& encoder_hidden_states_image) {
    at::Tensor image = encoder_hidden_states_image;
    if (pos_embed.defined()) {
        // FLF2V: the first and last frames' tokens side by side, each pair of samples one.
        image = image.view({-1, 2 * image.size(1), image.size(2)}) + pos_embed;
    }
    return norm2->forward(ff->forward(norm1->forward(image)));
}

WanTimeTextImageEmbeddingImpl::WanTimeTextImageEmbeddingImpl(
    std::int64_t dim, std::int64_t time_freq_dim, std::int64_t time_proj_dim,
    std::int64_t text_embed_dim, std::optional<std::int64_t> image_embed_dim,
    std::optional<std::int64_t> pos_embed_seq_len)
    : time_embedder(register_module("time_embedder", TimestepEmbedding(time_freq_dim, dim)))
    , time_proj(register_module("time_proj", lora::LoRALinear(dim, time_proj_dim)))
    , text_embedder(
          register_module("text_embedder", PixArtAlphaTextProjection(text_embed_dim, dim)))
    , time_freq_dim_(time_freq_dim) {
    if (image_embed_dim) {
        image_embedder = register_module(
            "image_embedder", WanImageEmbedding(*image_embed_dim, dim, pos_embed_seq_len));
    }
}

WanTimeTextImageEmbeddingImpl::Output WanTimeTextImageEmbeddingImpl::forward(
    const at::Tensor& timestep, const at::Tensor& encoder_hidden_states,
    const at::Tensor& encoder_hidden_states_image, std::optional<std::int64_t> timestep_seq_len) {
    // Timesteps(flip_sin_to_cos=True, downscale_freq_shift=0)
    at::Tensor features = get_timestep_embedding(timestep, time_freq_dim_, true, 0.0);
    if (timestep_seq_len) {
        features = features.view({-1, *timestep_seq_len, time_freq_dim_}); // [B, tokens, F]
    }
    Output out;
    out.temb = time_embedder->forward(features.to(time_embedder->linear_1->weight.scalar_type()))
                   .to(encoder_hidden_states.scalar_type());
    out.timestep_proj = time_proj->forward(torch::silu(out.temb));
    out.encoder_hidden_states = text_embedder->forward(encoder_hidden_states);
    if (encoder_hidden_states_image.defined()) {
        out.encoder_hidden_states_image = image_embedder->forward(encoder_hidden_states_image);
    }
    return out;
}

} // namespace tuneframe::models::wan
