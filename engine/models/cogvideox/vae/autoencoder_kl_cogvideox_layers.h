#pragma once

// The leaf modules of diffusers' AutoencoderKLCogVideoX (models/autoencoders/
// autoencoder_kl_cogvideox.py, downsampling.py, upsampling.py). Parameters are allocated but
// not initialised: they are filled from a checkpoint, or by the random initialiser that
// init-model uses. Tensors are [B, C, F, H, W].

#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <array>
#include <cstdint>
#include <vector>

namespace tuneframe::models::vae {

// The frames each causal convolution saw last, carried from one frame batch to the next so
// the batches join as if the clip had been convolved whole (diffusers' nested conv_cache,
// flattened: each convolution owns a slot). One cache per encode or decode of a tile.
class ConvCache {
public:
    at::Tensor take(std::size_t slot);
    void put(std::size_t slot, at::Tensor frames);

private:
    std::vector<at::Tensor> frames_;
};

// nn.Conv3d (stride 1, no padding) as CogVideoXSafeConv3d runs it: an input over 2 GiB
// (counted at 2 bytes an element) is convolved in temporal chunks that overlap by kernel-1
// frames, which saves memory and changes no value.
class CogVideoXSafeConv3dImpl : public torch::nn::Module {
public:
    CogVideoXSafeConv3dImpl(std::int64_t in_channels, std::int64_t out_channels,
                            std::int64_t kernel_size, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input) const;
    at::Tensor weight;
    at::Tensor bias;

private:
    std::int64_t kernel_size_;
};
TORCH_MODULE(CogVideoXSafeConv3d);

// Pads time on the left with the previous frame batch's last frames (from the cache) or, for
// the first batch, with copies of the first frame; pads H and W with zeros. The causal
// convolution of every 3x3x3 conv and of SpatialNorm's 1x1x1 convs.
class CogVideoXCausalConv3dImpl : public torch::nn::Module {
public:
    CogVideoXCausalConv3dImpl(std::int64_t in_channels, std::int64_t out_channels,
                              std::int64_t kernel_size, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input, ConvCache& cache) const;
    void set_cache_slot(std::size_t slot) { cache_slot_ = slot; }

private:
    std::int64_t time_pad_;
    std::int64_t space_pad_;
    std::size_t cache_slot_ = 0;
    CogVideoXSafeConv3d conv_{nullptr};
};
TORCH_MODULE(CogVideoXCausalConv3d);

// Gives each causal convolution under `root` its own cache slot; returns the slot count.
std::size_t assign_cache_slots(torch::nn::Module& root);

class VaeGroupNormImpl : public torch::nn::Module {
public:
    VaeGroupNormImpl(std::int64_t groups, std::int64_t channels, double eps,
                     const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input) const;
    at::Tensor weight;
    at::Tensor bias;

private:
    std::int64_t groups_;
    double eps_;
};
TORCH_MODULE(VaeGroupNorm);

class VaeConv2dImpl : public torch::nn::Module {
public:
    VaeConv2dImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t stride,
                  std::int64_t padding, const c10::TensorOptions& options);
    // Applied to every frame of a [B, C, F, H, W] tensor.
    at::Tensor forward_frames(const at::Tensor& input) const;
    at::Tensor weight; // [out, in, 3, 3]
    at::Tensor bias;

private:
    std::int64_t stride_;
    std::int64_t padding_;
};
TORCH_MODULE(VaeConv2d);

// Group norm of the decoder's features, scaled and shifted by 1x1x1 convolutions of the latent
// resized (nearest) to the features' frames and size.
class CogVideoXSpatialNorm3DImpl : public torch::nn::Module {
public:
    CogVideoXSpatialNorm3DImpl(std::int64_t f_channels, std::int64_t zq_channels,
                               std::int64_t groups, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& f, const at::Tensor& zq, ConvCache& cache) const;

private:
    VaeGroupNorm norm_layer_{nullptr};
    CogVideoXCausalConv3d conv_y_{nullptr};
    CogVideoXCausalConv3d conv_b_{nullptr};
};
TORCH_MODULE(CogVideoXSpatialNorm3D);

// Halves H and W (and, with compress_time, the frames after the first): stride-2 3x3 conv per
// frame after padding right and bottom by one.
class CogVideoXDownsample3DImpl : public torch::nn::Module {
public:
    CogVideoXDownsample3DImpl(std::int64_t channels, bool compress_time,
                              const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input) const;

private:
    bool compress_time_;
    VaeConv2d conv_{nullptr};
};
TORCH_MODULE(CogVideoXDownsample3D);

// Doubles H and W (and, with compress_time, the frames after the first) by nearest
// interpolation, then a 3x3 conv per frame.
class CogVideoXUpsample3DImpl : public torch::nn::Module {
public:
    CogVideoXUpsample3DImpl(std::int64_t channels, bool compress_time,
                            const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& input) const;

private:
    bool compress_time_;
    VaeConv2d conv_{nullptr};
};
TORCH_MODULE(CogVideoXUpsample3D);

} // namespace tuneframe::models::vae
