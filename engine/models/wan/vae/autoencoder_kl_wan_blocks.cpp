#include "engine/models/wan/vae/autoencoder_kl_wan_blocks.h"

#include <torch/torch.h>

#include <algorithm>

namespace tuneframe::models::wan {
namespace {

using Mode = WanResampleImpl::Mode;

// Appends `block` to `list` (the checkpoint's numbering) and to `chain` (for forward).
template <typename Holder>
void append(torch::nn::ModuleList& list, std::vector<std::shared_ptr<WanCachedModule>>& chain,
            Holder block) {
    list->push_back(block);
    chain.push_back(block.ptr());
}

std::vector<WanResidualBlock> residual_blocks(torch::nn::ModuleList& list, std::int64_t in_dim,
                                              std::int64_t out_dim, std::int64_t count,
                                              const c10::TensorOptions& options) {
    std::vector<WanResidualBlock> blocks;
    for (std::int64_t i = 0; i < count; ++i) {
        blocks.emplace_back(i == 0 ? in_dim : out_dim, out_dim, options);
        list->push_back(blocks.back());
    }
    return blocks;
}

at::Tensor run_resnets(const std::vector<WanResidualBlock>& resnets, const at::Tensor& x,
                       WanFeatureCache& cache) {
    at::Tensor hidden = x;
    for (const auto& resnet : resnets) {
        hidden = resnet->forward(hidden, cache);
    }
    return hidden;
}

} // namespace

WanMidBlockImpl::WanMidBlockImpl(std::int64_t dim, const c10::TensorOptions& options) {
    attention_list_.emplace_back(dim, options);
    attentions_->push_back(attention_list_.back());
    register_module("attentions", attentions_);
    resnet_list_ = residual_blocks(resnets_, dim, dim, 2, options);
    register_module("resnets", resnets_);
}

at::Tensor WanMidBlockImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = resnet_list_[0]->forward(x, cache);
    for (std::size_t i = 0; i < attention_list_.size(); ++i) {
        hidden = attention_list_[i]->forward(hidden);
        hidden = resnet_list_[i + 1]->forward(hidden, cache);
    }
    return hidden;
}

WanResidualDownBlockImpl::WanResidualDownBlockImpl(std::int64_t in_dim, std::int64_t out_dim,
                                                   std::int64_t num_res_blocks,
                                                   bool temporal_downsample, bool down_flag,
                                                   const c10::TensorOptions& options) {
    avg_shortcut_ = register_module(
        "avg_shortcut", AvgDown3D(in_dim, out_dim, temporal_downsample ? 2 : 1, down_flag ? 2 : 1));
    resnet_list_ = residual_blocks(resnets_, in_dim, out_dim, num_res_blocks, options);
    register_module("resnets", resnets_);
    if (down_flag) {
        downsampler_ = register_module(
            "downsampler",
            WanResample(out_dim, temporal_downsample ? Mode::Downsample3d : Mode::Downsample2d,
                        out_dim, options));
    }
}

at::Tensor WanResidualDownBlockImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = run_resnets(resnet_list_, x, cache);
    if (downsampler_) {
        hidden = downsampler_->forward(hidden, cache);
    }
    return hidden + avg_shortcut_->forward(x);
}

WanUpBlockImpl::WanUpBlockImpl(std::int64_t in_dim, std::int64_t out_dim,
                               std::int64_t num_res_blocks, std::optional<Mode> upsample_mode,
                               const c10::TensorOptions& options) {
    resnet_list_ = residual_blocks(resnets_, in_dim, out_dim, num_res_blocks + 1, options);
    register_module("resnets", resnets_);
    if (upsample_mode) {
        upsampler_ = WanResample(out_dim, *upsample_mode, out_dim / 2, options);
        register_module("upsamplers", torch::nn::ModuleList(upsampler_));
    }
}

at::Tensor WanUpBlockImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = run_resnets(resnet_list_, x, cache);
    return upsampler_ ? upsampler_->forward(hidden, cache) : hidden;
}

WanResidualUpBlockImpl::WanResidualUpBlockImpl(std::int64_t in_dim, std::int64_t out_dim,
                                               std::int64_t num_res_blocks, bool temporal_upsample,
                                               bool up_flag, const c10::TensorOptions& options) {
    if (up_flag) {
        avg_shortcut_ =
            register_module("avg_shortcut", DupUp3D(in_dim, out_dim, temporal_upsample ? 2 : 1, 2));
    }
    resnet_list_ = residual_blocks(resnets_, in_dim, out_dim, num_res_blocks + 1, options);
    register_module("resnets", resnets_);
    if (up_flag) {
        upsampler_ = register_module(
            "upsampler",
            WanResample(out_dim, temporal_upsample ? Mode::Upsample3d : Mode::Upsample2d, out_dim,
                        options));
    }
}

at::Tensor WanResidualUpBlockImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = run_resnets(resnet_list_, x, cache);
    if (upsampler_) {
        hidden = upsampler_->forward(hidden, cache);
    }
    if (avg_shortcut_) {
        hidden = hidden + avg_shortcut_->forward(x, cache.first_chunk());
    }
    return hidden;
}

WanEncoder3dImpl::WanEncoder3dImpl(const WanCoderShape& shape, const c10::TensorOptions& options) {
    std::vector<std::int64_t> dims = {shape.dim};
    for (std::int64_t mult : shape.dim_mult) {
        dims.push_back(shape.dim * mult);
    }
    conv_in_ =
        register_module("conv_in", WanCausalConv3d(shape.in_channels, dims[0], 3, 1, options));
    const std::size_t levels = shape.dim_mult.size();
    double scale = 1.0;
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        const bool last = i + 1 == levels;
        const bool temporal = !last && shape.temporal[i];
        if (shape.is_residual) {
            append(down_blocks_, down_list_,
                   WanResidualDownBlock(dims[i], dims[i + 1], shape.num_res_blocks, temporal, !last,
                                        options));
            continue;
        }
        std::int64_t in_dim = dims[i];
        for (std::int64_t j = 0; j < shape.num_res_blocks; ++j) {
            append(down_blocks_, down_list_, WanResidualBlock(in_dim, dims[i + 1], options));
            if (std::count(shape.attn_scales.begin(), shape.attn_scales.end(), scale) > 0) {
                append(down_blocks_, down_list_, WanAttentionBlock(dims[i + 1], options));
            }
            in_dim = dims[i + 1];
        }
        if (!last) {
            append(down_blocks_, down_list_,
                   WanResample(dims[i + 1], temporal ? Mode::Downsample3d : Mode::Downsample2d,
                               dims[i + 1], options));
            scale /= 2.0;
        }
    }
    register_module("down_blocks", down_blocks_);
    mid_block_ = register_module("mid_block", WanMidBlock(dims.back(), options));
    norm_out_ = register_module("norm_out", WanRMS_norm(dims.back(), false, options));
    conv_out_ = register_module("conv_out",
                                WanCausalConv3d(dims.back(), shape.out_channels, 3, 1, options));
}

at::Tensor WanEncoder3dImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = conv_in_->forward_cached(x, cache);
    for (const auto& block : down_list_) {
        hidden = block->forward(hidden, cache);
    }
    hidden = mid_block_->forward(hidden, cache);
    return conv_out_->forward_cached(norm_out_->forward_silu(hidden), cache);
}

WanDecoder3dImpl::WanDecoder3dImpl(const WanCoderShape& shape, const c10::TensorOptions& options) {
    std::vector<std::int64_t> dims = {shape.dim * shape.dim_mult.back()};
    for (auto mult = shape.dim_mult.rbegin(); mult != shape.dim_mult.rend(); ++mult) {
        dims.push_back(shape.dim * *mult);
    }
    conv_in_ =
        register_module("conv_in", WanCausalConv3d(shape.in_channels, dims[0], 3, 1, options));
    mid_block_ = register_module("mid_block", WanMidBlock(dims[0], options));
    const std::size_t levels = shape.dim_mult.size();
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
        const bool up_flag = i + 1 != levels;
        const bool temporal = up_flag && shape.temporal[i];
        if (shape.is_residual) {
            append(up_blocks_, up_list_,
                   WanResidualUpBlock(dims[i], dims[i + 1], shape.num_res_blocks, temporal, up_flag,
                                      options));
            continue;
        }
        // Wan 2.1's upsamplers halve the channels, so every block after the first gets half.
        const std::int64_t in_dim = i > 0 ? dims[i] / 2 : dims[i];
        std::optional<Mode> mode;
        if (up_flag) {
            mode = temporal ? Mode::Upsample3d : Mode::Upsample2d;
        }
        append(up_blocks_, up_list_,
               WanUpBlock(in_dim, dims[i + 1], shape.num_res_blocks, mode, options));
    }
    register_module("up_blocks", up_blocks_);
    norm_out_ = register_module("norm_out", WanRMS_norm(dims.back(), false, options));
    conv_out_ = register_module("conv_out",
                                WanCausalConv3d(dims.back(), shape.out_channels, 3, 1, options));
}

at::Tensor WanDecoder3dImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor hidden = conv_in_->forward_cached(x, cache);
    hidden = mid_block_->forward(hidden, cache);
    for (const auto& block : up_list_) {
        hidden = block->forward(hidden, cache);
    }
    return conv_out_->forward_cached(norm_out_->forward_silu(hidden), cache);
}

at::Tensor patchify(const at::Tensor& x, std::int64_t patch_size) {
    if (patch_size == 1) {
        return x;
    }
    const std::int64_t p = patch_size;
    const std::int64_t batch = x.size(0);
    const std::int64_t channels = x.size(1);
    const std::int64_t frames = x.size(2);
    const std::int64_t height = x.size(3) / p;
    const std::int64_t width = x.size(4) / p;
    return x.reshape({batch, channels, frames, height, p, width, p})
        .permute({0, 1, 6, 4, 2, 3, 5})
        .reshape({batch, channels * p * p, frames, height, width});
}

at::Tensor unpatchify(const at::Tensor& x, std::int64_t patch_size) {
    if (patch_size == 1) {
        return x;
    }
    const std::int64_t p = patch_size;
    const std::int64_t batch = x.size(0);
    const std::int64_t channels = x.size(1) / (p * p);
    const std::int64_t frames = x.size(2);
    const std::int64_t height = x.size(3);
    const std::int64_t width = x.size(4);
    return x.reshape({batch, channels, p, p, frames, height, width})
        .permute({0, 1, 4, 5, 3, 6, 2})
        .reshape({batch, channels, frames, height * p, width * p});
}

} // namespace tuneframe::models::wan
