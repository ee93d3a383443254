#pragma once

// The blocks and the two coders of diffusers' AutoencoderKLWan, registered under the
// checkpoint's names (encoder.down_blocks.3.time_conv.weight, decoder.up_blocks.0.upsampler...).
// Wan 2.1 (is_residual false): the encoder's down_blocks are one flat list of residual blocks,
// (attention blocks) and resamplers; the decoder's up blocks are WanUpBlock. Wan 2.2
// (is_residual true): WanResidualDownBlock / WanResidualUpBlock with their reshaping shortcuts.

#include "engine/models/wan/vae/autoencoder_kl_wan_layers.h"

#include <memory>
#include <optional>
#include <vector>

namespace tuneframe::models::wan {

// The encoder's or decoder's layout, from the VAE config.
struct WanCoderShape {
    std::int64_t in_channels = 3; // the encoder's (after patchify) or the decoder's z_dim
    std::int64_t out_channels = 3;
    std::int64_t dim = 96;
    std::vector<std::int64_t> dim_mult = {1, 2, 4, 4};
    std::int64_t num_res_blocks = 2;
    std::vector<double> attn_scales;
    // temperal_downsample for the encoder; its reverse (temperal_upsample) for the decoder.
    std::vector<bool> temporal;
    bool is_residual = false;
};

// resnets.0, then (attentions.i, resnets.i+1) pairs: one attention at the lowest resolution.
class WanMidBlockImpl : public WanCachedModule {
public:
    WanMidBlockImpl(std::int64_t dim, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    torch::nn::ModuleList attentions_;
    torch::nn::ModuleList resnets_;
    std::vector<WanAttentionBlock> attention_list_;
    std::vector<WanResidualBlock> resnet_list_;
};
TORCH_MODULE(WanMidBlock);

class WanResidualDownBlockImpl : public WanCachedModule {
public:
    WanResidualDownBlockImpl(std::int64_t in_dim, std::int64_t out_dim, std::int64_t num_res_blocks,
                             bool temporal_downsample, bool down_flag,
                             const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    AvgDown3D avg_shortcut_{nullptr};
    torch::nn::ModuleList resnets_;
    std::vector<WanResidualBlock> resnet_list_;
    WanResample downsampler_{nullptr};
};
TORCH_MODULE(WanResidualDownBlock);

// Wan 2.1's up block: num_res_blocks + 1 residual blocks, then upsamplers.0.
class WanUpBlockImpl : public WanCachedModule {
public:
    WanUpBlockImpl(std::int64_t in_dim, std::int64_t out_dim, std::int64_t num_res_blocks,
                   std::optional<WanResampleImpl::Mode> upsample_mode,
                   const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    torch::nn::ModuleList resnets_;
    std::vector<WanResidualBlock> resnet_list_;
    WanResample upsampler_{nullptr}; // upsamplers.0
};
TORCH_MODULE(WanUpBlock);

// Wan 2.2's up block: residual blocks and `upsampler` (keeping the channels), plus the DupUp3D
// shortcut of the block's input.
class WanResidualUpBlockImpl : public WanCachedModule {
public:
    WanResidualUpBlockImpl(std::int64_t in_dim, std::int64_t out_dim, std::int64_t num_res_blocks,
                           bool temporal_upsample, bool up_flag, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    DupUp3D avg_shortcut_{nullptr};
    torch::nn::ModuleList resnets_;
    std::vector<WanResidualBlock> resnet_list_;
    WanResample upsampler_{nullptr};
};
TORCH_MODULE(WanResidualUpBlock);

class WanEncoder3dImpl : public torch::nn::Module {
public:
    WanEncoder3dImpl(const WanCoderShape& shape, const c10::TensorOptions& options);
    // One chunk (the clip's first frame, then 4 frames at a time) [B, C, f, H, W] ->
    // [B, out_channels, f', H/2^(levels-1), W/2^(levels-1)].
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const;

private:
    WanCausalConv3d conv_in_{nullptr};
    torch::nn::ModuleList down_blocks_;
    std::vector<std::shared_ptr<WanCachedModule>> down_list_;
    WanMidBlock mid_block_{nullptr};
    WanRMS_norm norm_out_{nullptr};
    WanCausalConv3d conv_out_{nullptr};
};
TORCH_MODULE(WanEncoder3d);

class WanDecoder3dImpl : public torch::nn::Module {
public:
    WanDecoder3dImpl(const WanCoderShape& shape, const c10::TensorOptions& options);
    // One latent frame [B, z, 1, h, w] -> [B, out_channels, f, h*2^(levels-1), w*2^(levels-1)],
    // f = 1 for the clip's first frame and the temporal factor after it.
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const;

private:
    WanCausalConv3d conv_in_{nullptr};
    WanMidBlock mid_block_{nullptr};
    torch::nn::ModuleList up_blocks_;
    std::vector<std::shared_ptr<WanCachedModule>> up_list_;
    WanRMS_norm norm_out_{nullptr};
    WanCausalConv3d conv_out_{nullptr};
};
TORCH_MODULE(WanDecoder3d);

// [B, C, F, H, W] -> [B, C*p*p, F, H/p, W/p], channels ordered (c, column offset, row offset) as
// diffusers' patchify; unpatchify inverts it. p = 1 returns the input.
at::Tensor patchify(const at::Tensor& x, std::int64_t patch_size);
at::Tensor unpatchify(const at::Tensor& x, std::int64_t patch_size);

} // namespace tuneframe::models::wan
