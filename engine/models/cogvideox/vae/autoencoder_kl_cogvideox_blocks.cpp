#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_blocks.h"

#include <torch/torch.h>

namespace tuneframe::models::vae {

CogVideoXResnetBlock3DImpl::CogVideoXResnetBlock3DImpl(std::int64_t in_channels,
                                                       std::int64_t out_channels,
                                                       std::int64_t groups, double eps,
                                                       std::optional<std::int64_t> spatial_norm_dim,
                                                       const c10::TensorOptions& options) {
    if (spatial_norm_dim) {
        spatial_norm1_ = register_module(
            "norm1", CogVideoXSpatialNorm3D(in_channels, *spatial_norm_dim, groups, options));
    } else {
        group_norm1_ = register_module("norm1", VaeGroupNorm(groups, in_channels, eps, options));
    }
    conv1_ = register_module("conv1", CogVideoXCausalConv3d(in_channels, out_channels, 3, options));
    if (spatial_norm_dim) {
        spatial_norm2_ = register_module(
            "norm2", CogVideoXSpatialNorm3D(out_channels, *spatial_norm_dim, groups, options));
    } else {
        group_norm2_ = register_module("norm2", VaeGroupNorm(groups, out_channels, eps, options));
    }
    conv2_ =
        register_module("conv2", CogVideoXCausalConv3d(out_channels, out_channels, 3, options));
    if (in_channels != out_channels) {
        conv_shortcut_ = register_module(
            "conv_shortcut", CogVideoXSafeConv3d(in_channels, out_channels, 1, options));
    }
}

at::Tensor CogVideoXResnetBlock3DImpl::norm(int which, const at::Tensor& x, const at::Tensor& zq,
                                            ConvCache& cache) const {
    const auto& spatial = which == 1 ? spatial_norm1_ : spatial_norm2_;
    if (spatial) {
        return spatial->forward(x, zq, cache);
    }
    return (which == 1 ? group_norm1_ : group_norm2_)->forward(x);
}

at::Tensor CogVideoXResnetBlock3DImpl::forward(const at::Tensor& input, const at::Tensor& zq,
                                               ConvCache& cache) const {
    // The norms return fresh tensors, so SiLU and the residual add work in place; the values
    // are those of diffusers' out-of-place ops.
    at::Tensor hidden = norm(1, input, zq, cache);
    hidden = conv1_->forward(at::silu_(hidden), cache);
    hidden = norm(2, hidden, zq, cache);
    hidden = conv2_->forward(at::silu_(hidden), cache);
    return hidden.add_(conv_shortcut_ ? conv_shortcut_->forward(input) : input);
}

CogVideoXBlock3DImpl::CogVideoXBlock3DImpl(std::int64_t in_channels, std::int64_t out_channels,
                                           std::int64_t num_layers, std::int64_t groups, double eps,
                                           std::optional<std::int64_t> spatial_norm_dim,
                                           Sampler sampler, bool compress_time,
                                           const c10::TensorOptions& options) {
    for (std::int64_t i = 0; i < num_layers; ++i) {
        resnet_list_.emplace_back(i == 0 ? in_channels : out_channels, out_channels, groups, eps,
                                  spatial_norm_dim, options);
        resnets_->push_back(resnet_list_.back());
    }
    register_module("resnets", resnets_);
    if (sampler == Sampler::Down) {
        downsampler_ = CogVideoXDownsample3D(out_channels, compress_time, options);
        register_module("downsamplers", torch::nn::ModuleList(downsampler_));
    } else if (sampler == Sampler::Up) {
        upsampler_ = CogVideoXUpsample3D(out_channels, compress_time, options);
        register_module("upsamplers", torch::nn::ModuleList(upsampler_));
    }
}

at::Tensor CogVideoXBlock3DImpl::forward(const at::Tensor& input, const at::Tensor& zq,
                                         ConvCache& cache) const {
    at::Tensor hidden = input;
    for (const auto& resnet : resnet_list_) {
        hidden = resnet->forward(hidden, zq, cache);
    }
    if (downsampler_) {
        hidden = downsampler_->forward(hidden);
    }
    if (upsampler_) {
        hidden = upsampler_->forward(hidden);
    }
    return hidden;
}

CogVideoXEncoder3DImpl::CogVideoXEncoder3DImpl(const CoderShape& shape,
                                               const c10::TensorOptions& options) {
    const auto& channels = shape.block_out_channels;
    conv_in_ = register_module("conv_in",
                               CogVideoXCausalConv3d(shape.in_channels, channels[0], 3, options));
    std::int64_t output_channel = channels[0];
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const std::int64_t input_channel = output_channel;
        output_channel = channels[i];
        const bool is_final = i + 1 == channels.size();
        const bool compress_time = static_cast<std::int64_t>(i) < shape.temporal_compress_level;
        down_list_.emplace_back(input_channel, output_channel, shape.layers_per_block,
                                shape.norm_num_groups, shape.norm_eps, std::nullopt,
                                is_final ? CogVideoXBlock3DImpl::Sampler::None
                                         : CogVideoXBlock3DImpl::Sampler::Down,
                                compress_time, options);
        down_blocks_->push_back(down_list_.back());
    }
    register_module("down_blocks", down_blocks_);
    mid_block_ = register_module(
        "mid_block",
        CogVideoXBlock3D(channels.back(), channels.back(), 2, shape.norm_num_groups, shape.norm_eps,
                         std::nullopt, CogVideoXBlock3DImpl::Sampler::None, false, options));
    norm_out_ = register_module(
        "norm_out", VaeGroupNorm(shape.norm_num_groups, channels.back(), 1e-6, options));
    conv_out_ = register_module(
        "conv_out", CogVideoXCausalConv3d(channels.back(), 2 * shape.out_channels, 3, options));
    assign_cache_slots(*this);
}

at::Tensor CogVideoXEncoder3DImpl::forward(const at::Tensor& sample, ConvCache& cache) const {
    at::Tensor hidden = conv_in_->forward(sample, cache);
    for (const auto& block : down_list_) {
        hidden = block->forward(hidden, {}, cache);
    }
    hidden = mid_block_->forward(hidden, {}, cache);
    hidden = norm_out_->forward(hidden);
    return conv_out_->forward(at::silu_(hidden), cache);
}

CogVideoXDecoder3DImpl::CogVideoXDecoder3DImpl(const CoderShape& shape,
                                               const c10::TensorOptions& options) {
    const std::vector<std::int64_t> channels(shape.block_out_channels.rbegin(),
                                             shape.block_out_channels.rend());
    const std::int64_t latent = shape.in_channels;
    conv_in_ = register_module("conv_in", CogVideoXCausalConv3d(latent, channels[0], 3, options));
    mid_block_ = register_module(
        "mid_block",
        CogVideoXBlock3D(channels[0], channels[0], 2, shape.norm_num_groups, shape.norm_eps, latent,
                         CogVideoXBlock3DImpl::Sampler::None, false, options));
    std::int64_t output_channel = channels[0];
    for (std::size_t i = 0; i < channels.size(); ++i) {
        const std::int64_t previous_channel = output_channel;
        output_channel = channels[i];
        const bool is_final = i + 1 == channels.size();
        const bool compress_time = static_cast<std::int64_t>(i) < shape.temporal_compress_level;
        // Up blocks have one resnet more than down blocks.
        up_list_.emplace_back(previous_channel, output_channel, shape.layers_per_block + 1,
                              shape.norm_num_groups, shape.norm_eps, latent,
                              is_final ? CogVideoXBlock3DImpl::Sampler::None
                                       : CogVideoXBlock3DImpl::Sampler::Up,
                              compress_time, options);
        up_blocks_->push_back(up_list_.back());
    }
    register_module("up_blocks", up_blocks_);
    norm_out_ = register_module("norm_out", CogVideoXSpatialNorm3D(channels.back(), latent,
                                                                   shape.norm_num_groups, options));
    conv_out_ = register_module(
        "conv_out", CogVideoXCausalConv3d(channels.back(), shape.out_channels, 3, options));
    assign_cache_slots(*this);
}

at::Tensor CogVideoXDecoder3DImpl::forward(const at::Tensor& sample, ConvCache& cache) const {
    at::Tensor hidden = conv_in_->forward(sample, cache);
    hidden = mid_block_->forward(hidden, sample, cache);
    for (const auto& block : up_list_) {
        hidden = block->forward(hidden, sample, cache);
    }
    hidden = norm_out_->forward(hidden, sample, cache);
    return conv_out_->forward(at::silu_(hidden), cache);
}

} // namespace tuneframe::models::vae
