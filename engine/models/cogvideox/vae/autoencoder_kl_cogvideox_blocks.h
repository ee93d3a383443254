#pragma once

// The blocks of diffusers' CogVideoXEncoder3D / CogVideoXDecoder3D, registered under the
// checkpoint's names (down_blocks.0.resnets.1.conv1.conv.weight, ...). An undefined `zq` means
// the encoder's group norms; the decoder passes its latent frame batch as `zq`.

#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_layers.h"

#include <torch/nn/modules/container/modulelist.h>

#include <optional>
#include <vector>

namespace tuneframe::models::vae {

// Channel and block layout shared by the encoder and the decoder (from the VAE config).
struct CoderShape {
    std::int64_t in_channels = 3;
    std::int64_t out_channels = 3;
    std::vector<std::int64_t> block_out_channels = {128, 256, 256, 512};
    std::int64_t layers_per_block = 3;
    std::int64_t norm_num_groups = 32;
    double norm_eps = 1e-6;
    std::int64_t temporal_compress_level = 2; // log2(temporal_compression_ratio)
};

class CogVideoXResnetBlock3DImpl : public torch::nn::Module {
public:
    // `spatial_norm_dim`: the latent channels for the decoder's SpatialNorm3D; none for the
    // encoder's GroupNorm.
    CogVideoXResnetBlock3DImpl(std::int64_t in_channels, std::int64_t out_channels,
                               std::int64_t groups, double eps,
                               std::optional<std::int64_t> spatial_norm_dim,
                               const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input, const at::Tensor& zq, ConvCache& cache) const;

private:
    at::Tensor norm(int which, const at::Tensor& x, const at::Tensor& zq, ConvCache& cache) const;

    VaeGroupNorm group_norm1_{nullptr}, group_norm2_{nullptr};
    CogVideoXSpatialNorm3D spatial_norm1_{nullptr}, spatial_norm2_{nullptr};
    CogVideoXCausalConv3d conv1_{nullptr}, conv2_{nullptr};
    CogVideoXSafeConv3d conv_shortcut_{nullptr}; // 1x1x1, only when the channels change
};
TORCH_MODULE(CogVideoXResnetBlock3D);

// Resnets, then an optional down- or upsampler: CogVideoXDownBlock3D, CogVideoXMidBlock3D (no
// sampler) and CogVideoXUpBlock3D share this shape.
class CogVideoXBlock3DImpl : public torch::nn::Module {
public:
    enum class Sampler { None, Down, Up };
    CogVideoXBlock3DImpl(std::int64_t in_channels, std::int64_t out_channels,
                         std::int64_t num_layers, std::int64_t groups, double eps,
                         std::optional<std::int64_t> spatial_norm_dim, Sampler sampler,
                         bool compress_time, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input, const at::Tensor& zq, ConvCache& cache) const;

private:
    torch::nn::ModuleList resnets_;
    std::vector<CogVideoXResnetBlock3D> resnet_list_;
    CogVideoXDownsample3D downsampler_{nullptr}; // downsamplers.0
    CogVideoXUpsample3D upsampler_{nullptr};     // upsamplers.0
};
TORCH_MODULE(CogVideoXBlock3D);

class CogVideoXEncoder3DImpl : public torch::nn::Module {
public:
    CogVideoXEncoder3DImpl(const CoderShape& shape, const c10::TensorOptions& options);
    // [B, 3, F, H, W] -> [B, 2 * latent, F', H/8, W/8] (mean and log-variance).
    at::Tensor forward(const at::Tensor& sample, ConvCache& cache) const;

private:
    CogVideoXCausalConv3d conv_in_{nullptr};
    torch::nn::ModuleList down_blocks_;
    std::vector<CogVideoXBlock3D> down_list_;
    CogVideoXBlock3D mid_block_{nullptr};
    VaeGroupNorm norm_out_{nullptr};
    CogVideoXCausalConv3d conv_out_{nullptr};
};
TORCH_MODULE(CogVideoXEncoder3D);

class CogVideoXDecoder3DImpl : public torch::nn::Module {
public:
    CogVideoXDecoder3DImpl(const CoderShape& shape, const c10::TensorOptions& options);
    // [B, latent, F', h, w] -> [B, 3, F, 8h, 8w]; every SpatialNorm sees `sample` as zq.
    at::Tensor forward(const at::Tensor& sample, ConvCache& cache) const;

private:
    CogVideoXCausalConv3d conv_in_{nullptr};
    CogVideoXBlock3D mid_block_{nullptr};
    torch::nn::ModuleList up_blocks_;
    std::vector<CogVideoXBlock3D> up_list_;
    CogVideoXSpatialNorm3D norm_out_{nullptr};
    CogVideoXCausalConv3d conv_out_{nullptr};
};
TORCH_MODULE(CogVideoXDecoder3D);

} // namespace tuneframe::models::vae
