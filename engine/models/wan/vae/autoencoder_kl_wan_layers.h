#pragma once

// The leaf modules of diffusers' AutoencoderKLWan (models/autoencoders/autoencoder_kl_wan.py):
// causal 3-D convolutions with their chunk-to-chunk feature cache, the RMS norm, the resampling
// layers, the residual and attention blocks and the Wan 2.2 shortcut reshapes. Parameters are
// allocated but not initialised: a checkpoint or the random initialiser fills them. Tensors are
// [B, C, F, H, W].

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/pimpl.h>

#include <array>
#include <cstdint>
#include <vector>

namespace tuneframe::models::wan {

// diffusers' feat_cache / feat_idx: what each causal convolution saw at the end of the previous
// chunk, so that chunks of a clip join as diffusers joins them. Every chunk visits the slots in
// the same order, so a slot is simply the next one. One cache per encode or decode of a sample
// or tile (diffusers' clear_cache).
class WanFeatureCache {
public:
    struct Slot {
        at::Tensor frames;      // the last (up to 2) input frames; undefined before the first
        bool replicate = false; // diffusers' "Rep": upsample3d saw the first chunk only
        bool empty() const { return !frames.defined() && !replicate; }
    };

    // Starts a chunk: slots are visited from the first again.
    void begin_chunk();
    Slot& next();
    // The first chunk of the clip (diffusers' first_chunk, which the Wan 2.2 decoder's DupUp3D
    // shortcut needs).
    bool first_chunk() const { return chunks_ <= 1; }

private:
    std::vector<Slot> slots_;
    std::size_t index_ = 0;
    std::int64_t chunks_ = 0;
};

// A module of an encoder or decoder chain that processes one chunk through the cache.
class WanCachedModule : public torch::nn::Module {
public:
    virtual at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const = 0;
};

// nn.Conv3d with diffusers' causal padding: 2 * padding frames in front (the previous chunk's
// frames when the cache has them, zeros otherwise), `padding` zeros on either side in H and W.
class WanCausalConv3dImpl : public torch::nn::Module {
public:
    WanCausalConv3dImpl(std::int64_t in_channels, std::int64_t out_channels,
                        std::array<std::int64_t, 3> kernel, std::array<std::int64_t, 3> stride,
                        std::array<std::int64_t, 3> padding, const c10::TensorOptions& options);
    // Cubic kernel, stride 1: the residual blocks' and the coders' in/out convolutions.
    WanCausalConv3dImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel,
                        std::int64_t padding, const c10::TensorOptions& options);

    // `previous`: frames that come before `x` in time (they replace that many padding frames).
    at::Tensor forward(const at::Tensor& x, const at::Tensor& previous = {}) const;
    // forward() fed from, and then refilling, the cache's next slot, as diffusers does around
    // every cached convolution.
    at::Tensor forward_cached(const at::Tensor& x, WanFeatureCache& cache) const;

    at::Tensor weight; // [out, in, kt, kh, kw]
    at::Tensor bias;

private:
    std::array<std::int64_t, 3> stride_;
    std::array<std::int64_t, 3> padding_; // time (applied twice, in front), height, width
};
TORCH_MODULE(WanCausalConv3d);

// nn.Conv2d (square kernel) applied to [N, C, H, W].
class WanConv2dImpl : public torch::nn::Module {
public:
    WanConv2dImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t kernel,
                  std::int64_t stride, std::int64_t padding, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x) const;

    at::Tensor weight; // [out, in, k, k]
    at::Tensor bias;

private:
    std::int64_t stride_;
    std::int64_t padding_;
};
TORCH_MODULE(WanConv2d);

// L2-normalises over the channels, then scales by sqrt(dim) * gamma. Half-precision inputs are
// normalised in float32, as diffusers does. `images`: gamma is [dim, 1, 1] for [N, C, H, W]
// inputs, else [dim, 1, 1, 1] for videos.
class WanRMS_normImpl : public torch::nn::Module {
public:
    WanRMS_normImpl(std::int64_t dim, bool images, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x) const;
    // SiLU(forward(x)), in place on the norm's fresh output: every norm but the attention's
    // is followed by SiLU.
    at::Tensor forward_silu(const at::Tensor& x) const;

    at::Tensor gamma;

private:
    double scale_;
};
TORCH_MODULE(WanRMS_norm);

// Spatial 2x resampling of every frame, and for the 3d modes 2x in time through `time_conv`
// and the cache: upsample3d doubles every chunk's frames but the clip's first, downsample3d
// halves them (the first chunk's single frame is kept).
class WanResampleImpl : public WanCachedModule {
public:
    enum class Mode { Upsample2d, Upsample3d, Downsample2d, Downsample3d };
    // `upsample_out_dim`: the conv's output channels when upsampling (diffusers' default dim/2).
    WanResampleImpl(std::int64_t dim, Mode mode, std::int64_t upsample_out_dim,
                    const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    at::Tensor upsample_time(const at::Tensor& x, WanFeatureCache& cache) const;
    at::Tensor downsample_time(const at::Tensor& x, WanFeatureCache& cache) const;
    at::Tensor resample_frames(const at::Tensor& x) const;

    Mode mode_;
    torch::nn::ModuleList resample_; // 0: the parameterless upsample or zero pad; 1: the conv
    WanConv2d resample_1_{nullptr};
    WanCausalConv3d time_conv_{nullptr};
};
TORCH_MODULE(WanResample);

// The Wan 2.2 down blocks' shortcut: folds factor_t x factor_s x factor_s neighbourhoods into
// channels and averages groups of them down to out_channels. A chunk whose frame count the
// temporal factor does not divide is padded with zero frames in front.
class AvgDown3DImpl : public torch::nn::Module {
public:
    AvgDown3DImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t factor_t,
                  std::int64_t factor_s);
    at::Tensor forward(const at::Tensor& x) const;

private:
    std::int64_t out_channels_;
    std::int64_t factor_t_;
    std::int64_t factor_s_;
    std::int64_t group_size_;
};
TORCH_MODULE(AvgDown3D);

// The Wan 2.2 up blocks' shortcut: repeats channels and unfolds them into factor_t frames and
// factor_s x factor_s pixels; the clip's first chunk drops the first factor_t - 1 frames.
class DupUp3DImpl : public torch::nn::Module {
public:
    DupUp3DImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t factor_t,
                std::int64_t factor_s);
    at::Tensor forward(const at::Tensor& x, bool first_chunk) const;

private:
    std::int64_t out_channels_;
    std::int64_t factor_t_;
    std::int64_t factor_s_;
    std::int64_t repeats_;
};
TORCH_MODULE(DupUp3D);

// norm1, SiLU, conv1, norm2, SiLU, (dropout: none at inference), conv2, plus the shortcut (a
// 1x1x1 convolution when the channels change).
class WanResidualBlockImpl : public WanCachedModule {
public:
    WanResidualBlockImpl(std::int64_t in_dim, std::int64_t out_dim,
                         const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    WanRMS_norm norm1_{nullptr};
    WanCausalConv3d conv1_{nullptr};
    WanRMS_norm norm2_{nullptr};
    WanCausalConv3d conv2_{nullptr};
    WanCausalConv3d conv_shortcut_{nullptr};
};
TORCH_MODULE(WanResidualBlock);

// Single-head self-attention over the pixels of each frame (no cache: frames do not mix).
class WanAttentionBlockImpl : public WanCachedModule {
public:
    WanAttentionBlockImpl(std::int64_t dim, const c10::TensorOptions& options);
    at::Tensor forward(const at::Tensor& x) const;
    at::Tensor forward(const at::Tensor& x, WanFeatureCache& cache) const override;

private:
    WanRMS_norm norm_{nullptr};
    WanConv2d to_qkv_{nullptr};
    WanConv2d proj_{nullptr};
};
TORCH_MODULE(WanAttentionBlock);

} // namespace tuneframe::models::wan
