#include "engine/models/wan/vae/autoencoder_kl_wan_layers.h"

#include "engine/core/bf16_convolution.h"
#include "engine/core/kernels/attention.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::models::wan {
namespace {

using Triple = std::array<std::int64_t, 3>;

// diffusers' CACHE_T: the frames a causal convolution carries to the next chunk.
constexpr std::int64_t kCacheFrames = 2;

// The last kCacheFrames frames of `x`; a single frame is preceded by the last frame of the
// slot's previous content, as diffusers refills its caches.
at::Tensor frames_to_cache(const at::Tensor& x, const WanFeatureCache::Slot& slot) {
    const std::int64_t frames = x.size(2);
    const std::int64_t kept = std::min(frames, kCacheFrames);
    at::Tensor cached = x.narrow(2, frames - kept, kept);
    if (kept < kCacheFrames && slot.frames.defined()) {
        const at::Tensor& previous = slot.frames;
        return at::cat({previous.narrow(2, previous.size(2) - 1, 1), cached}, 2);
    }
    return cached.clone(at::MemoryFormat::Contiguous);
}

// [B, C, F, H, W] <-> [B*F, C, H, W], so 2-D layers see every frame.
at::Tensor frames_as_images(const at::Tensor& x) {
    return x.permute({0, 2, 1, 3, 4})
        .reshape({x.size(0) * x.size(2), x.size(1), x.size(3), x.size(4)}); // [B*F, C, H, W]
}

at::Tensor images_as_frames(const at::Tensor& images, std::int64_t batch) {
    return images
        .reshape({batch, images.size(0) / batch, images.size(1), images.size(2), images.size(3)})
        .permute({0, 2, 1, 3, 4}); // [B, C, F, H, W]
}

} // namespace

void WanFeatureCache::begin_chunk() {
    index_ = 0;
    ++chunks_;
}

WanFeatureCache::Slot& WanFeatureCache::next() {
    if (index_ == slots_.size()) {
        slots_.emplace_back();
    }
    return slots_[index_++];
}

WanCausalConv3dImpl::WanCausalConv3dImpl(std::int64_t in_channels, std::int64_t out_channels,
                                         std::array<std::int64_t, 3> kernel,
                                         std::array<std::int64_t, 3> stride,
                                         std::array<std::int64_t, 3> padding,
                                         const c10::TensorOptions& options)
    : weight(register_parameter(
          "weight",
          torch::empty({out_channels, in_channels, kernel[0], kernel[1], kernel[2]}, options)))
    , bias(register_parameter("bias", torch::empty({out_channels}, options)))
    , stride_(stride)
    , padding_(padding) {}

WanCausalConv3dImpl::WanCausalConv3dImpl(std::int64_t in_channels, std::int64_t out_channels,
                                         std::int64_t kernel, std::int64_t padding,
                                         const c10::TensorOptions& options)
    : WanCausalConv3dImpl(in_channels, out_channels, {kernel, kernel, kernel}, {1, 1, 1},
                          {padding, padding, padding}, options) {}

at::Tensor WanCausalConv3dImpl::forward(const at::Tensor& x, const at::Tensor& previous) const {
    const std::int64_t time_pad = 2 * padding_[0];
    const std::int64_t space_h = padding_[1];
    const std::int64_t space_w = padding_[2];
    const bool use_previous = previous.defined() && time_pad > 0;
    const std::int64_t previous_frames = use_previous ? previous.size(2) : 0;
    const std::int64_t zero_frames = std::max<std::int64_t>(time_pad - previous_frames, 0);
    at::Tensor input = x;
    if (use_previous || zero_frames > 0 || space_h > 0 || space_w > 0) {
        // One buffer holds the zero frames, the cached frames, the chunk and the zero border:
        // diffusers' cat and F.pad without their intermediate copy.
        const std::int64_t frames = x.size(2);
        const std::int64_t height = x.size(3);
        const std::int64_t width = x.size(4);
        input = at::zeros({x.size(0), x.size(1), zero_frames + previous_frames + frames,
                           height + 2 * space_h, width + 2 * space_w},
                          x.options());
        at::Tensor interior = input.narrow(3, space_h, height).narrow(4, space_w, width);
        if (use_previous) {
            interior.narrow(2, zero_frames, previous_frames).copy_(previous);
        }
        interior.narrow(2, zero_frames + previous_frames, frames).copy_(x);
    }
    return core::convolve_in_correct_layout(input, weight.size(0), [&](const at::Tensor& in) {
        return at::conv3d(in, weight, bias, stride_);
    });
}

at::Tensor WanCausalConv3dImpl::forward_cached(const at::Tensor& x, WanFeatureCache& cache) const {
    WanFeatureCache::Slot& slot = cache.next();
    at::Tensor cached = frames_to_cache(x, slot);
    at::Tensor out = forward(x, slot.frames);
    slot.frames = std::move(cached);
    return out;
}

WanConv2dImpl::WanConv2dImpl(std::int64_t in_channels, std::int64_t out_channels,
                             std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                             const c10::TensorOptions& options)
    : weight(register_parameter("weight",
                                torch::empty({out_channels, in_channels, kernel, kernel}, options)))
    , bias(register_parameter("bias", torch::empty({out_channels}, options)))
    , stride_(stride)
    , padding_(padding) {}

at::Tensor WanConv2dImpl::forward(const at::Tensor& x) const {
    return core::convolve_in_correct_layout(x, weight.size(0), [&](const at::Tensor& in) {
        return at::conv2d(in, weight, bias, stride_, padding_);
    });
}

WanRMS_normImpl::WanRMS_normImpl(std::int64_t dim, bool images, const c10::TensorOptions& options)
    : gamma(register_parameter("gamma", images ? torch::ones({dim, 1, 1}, options)
                                               : torch::ones({dim, 1, 1, 1}, options)))
    , scale_(std::sqrt(static_cast<double>(dim))) {}

at::Tensor WanRMS_normImpl::forward(const at::Tensor& x) const {
    const bool upcast = x.scalar_type() == at::kBFloat16 || x.scalar_type() == at::kHalf;
    const at::Tensor input = upcast ? x.to(at::kFloat) : x;
    // F.normalize(dim=1): x / max(||x||, 1e-12).
    const at::Tensor norm = input.norm(2, {1}, /*keepdim=*/true).clamp_min(1e-12);
    const at::Tensor normalized = (input / norm).to(x.scalar_type());
    return normalized * scale_ * gamma;
}

at::Tensor WanRMS_normImpl::forward_silu(const at::Tensor& x) const {
    at::Tensor out = forward(x);
    at::silu_(out);
    return out;
}

WanResampleImpl::WanResampleImpl(std::int64_t dim, Mode mode, std::int64_t upsample_out_dim,
                                 const c10::TensorOptions& options)
    : mode_(mode) {
    resample_->push_back(torch::nn::Identity());
    const bool up = mode == Mode::Upsample2d || mode == Mode::Upsample3d;
    resample_1_ = up ? WanConv2d(dim, upsample_out_dim, 3, 1, 1, options)
                     : WanConv2d(dim, dim, 3, 2, 0, options);
    resample_->push_back(resample_1_);
    register_module("resample", resample_);
    if (mode == Mode::Upsample3d) {
        time_conv_ = register_module("time_conv",
                                     WanCausalConv3d(dim, dim * 2, Triple{3, 1, 1}, Triple{1, 1, 1},
                                                     Triple{1, 0, 0}, options));
    } else if (mode == Mode::Downsample3d) {
        time_conv_ =
            register_module("time_conv", WanCausalConv3d(dim, dim, Triple{3, 1, 1}, Triple{2, 1, 1},
                                                         Triple{0, 0, 0}, options));
    }
}

at::Tensor WanResampleImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    at::Tensor out = mode_ == Mode::Upsample3d ? upsample_time(x, cache) : x;
    out = resample_frames(out);
    return mode_ == Mode::Downsample3d ? downsample_time(out, cache) : out;
}

at::Tensor WanResampleImpl::upsample_time(const at::Tensor& x, WanFeatureCache& cache) const {
    WanFeatureCache::Slot& slot = cache.next();
    if (slot.empty()) {
        // The clip's first frame stands alone: it is not doubled.
        slot.replicate = true;
        return x;
    }
    at::Tensor cached;
    if (slot.replicate && x.size(2) < kCacheFrames) {
        const at::Tensor last = x.narrow(2, x.size(2) - 1, 1);
        cached = at::cat({at::zeros_like(last), last}, 2);
    } else {
        cached = frames_to_cache(x, slot);
    }
    const at::Tensor doubled = time_conv_->forward(x, slot.frames); // [B, 2C, F, H, W]
    slot = {std::move(cached), false};
    const std::int64_t batch = x.size(0);
    const std::int64_t channels = x.size(1);
    const std::int64_t frames = x.size(2);
    // The two halves of the channels are the even and odd output frames.
    return doubled.reshape({batch, 2, channels, frames, x.size(3), x.size(4)})
        .permute({0, 2, 3, 1, 4, 5})
        .reshape({batch, channels, frames * 2, x.size(3), x.size(4)});
}

at::Tensor WanResampleImpl::downsample_time(const at::Tensor& x, WanFeatureCache& cache) const {
    WanFeatureCache::Slot& slot = cache.next();
    const at::Tensor last = x.narrow(2, x.size(2) - 1, 1).clone(at::MemoryFormat::Contiguous);
    if (slot.empty()) {
        slot.frames = last;
        return x;
    }
    const at::Tensor& previous = slot.frames;
    at::Tensor out =
        time_conv_->forward(at::cat({previous.narrow(2, previous.size(2) - 1, 1), x}, 2));
    slot.frames = last;
    return out;
}

at::Tensor WanResampleImpl::resample_frames(const at::Tensor& x) const {
    at::Tensor images = frames_as_images(x);
    if (mode_ == Mode::Upsample2d || mode_ == Mode::Upsample3d) {
        // nearest-exact at an integer factor of 2 copies each pixel into a 2x2 block.
        images = images.repeat_interleave(2, 2).repeat_interleave(2, 3);
    } else {
        images = at::constant_pad_nd(images, {0, 1, 0, 1}, 0);
    }
    return images_as_frames(resample_1_->forward(images), x.size(0));
}

AvgDown3DImpl::AvgDown3DImpl(std::int64_t in_channels, std::int64_t out_channels,
                             std::int64_t factor_t, std::int64_t factor_s)
    : out_channels_(out_channels)
    , factor_t_(factor_t)
    , factor_s_(factor_s)
    , group_size_(in_channels * factor_t * factor_s * factor_s / out_channels) {
    TORCH_CHECK(in_channels * factor_t * factor_s * factor_s % out_channels == 0,
                "AvgDown3D: channels do not divide");
}

at::Tensor AvgDown3DImpl::forward(const at::Tensor& x) const {
    const std::int64_t pad_t = (factor_t_ - x.size(2) % factor_t_) % factor_t_;
    const at::Tensor padded = pad_t > 0 ? at::constant_pad_nd(x, {0, 0, 0, 0, pad_t, 0}, 0) : x;
    const std::int64_t batch = padded.size(0);
    const std::int64_t channels = padded.size(1);
    const std::int64_t frames = padded.size(2) / factor_t_;
    const std::int64_t height = padded.size(3) / factor_s_;
    const std::int64_t width = padded.size(4) / factor_s_;
    return padded.reshape({batch, channels, frames, factor_t_, height, factor_s_, width, factor_s_})
        .permute({0, 1, 3, 5, 7, 2, 4, 6})
        .reshape({batch, out_channels_, group_size_, frames, height, width})
        .mean(2); // [B, out, F/ft, H/fs, W/fs]
}

DupUp3DImpl::DupUp3DImpl(std::int64_t in_channels, std::int64_t out_channels, std::int64_t factor_t,
                         std::int64_t factor_s)
    : out_channels_(out_channels)
    , factor_t_(factor_t)
    , factor_s_(factor_s)
    , repeats_(out_channels * factor_t * factor_s * factor_s / in_channels) {
    TORCH_CHECK(out_channels * factor_t * factor_s * factor_s % in_channels == 0,
                "DupUp3D: channels do not divide");
}

at::Tensor DupUp3DImpl::forward(const at::Tensor& x, bool first_chunk) const {
    const std::int64_t batch = x.size(0);
    const std::int64_t frames = x.size(2);
    const std::int64_t height = x.size(3);
    const std::int64_t width = x.size(4);
    at::Tensor out =
        x.repeat_interleave(repeats_, 1)
            .reshape({batch, out_channels_, factor_t_, factor_s_, factor_s_, frames, height, width})
            .permute({0, 1, 5, 2, 6, 3, 7, 4})
            .reshape(
                {batch, out_channels_, frames * factor_t_, height * factor_s_, width * factor_s_});
    if (first_chunk) {
        out = out.narrow(2, factor_t_ - 1, out.size(2) - (factor_t_ - 1));
    }
    return out;
}

WanResidualBlockImpl::WanResidualBlockImpl(std::int64_t in_dim, std::int64_t out_dim,
                                           const c10::TensorOptions& options) {
    norm1_ = register_module("norm1", WanRMS_norm(in_dim, false, options));
    conv1_ = register_module("conv1", WanCausalConv3d(in_dim, out_dim, 3, 1, options));
    norm2_ = register_module("norm2", WanRMS_norm(out_dim, false, options));
    conv2_ = register_module("conv2", WanCausalConv3d(out_dim, out_dim, 3, 1, options));
    if (in_dim != out_dim) {
        conv_shortcut_ =
            register_module("conv_shortcut", WanCausalConv3d(in_dim, out_dim, 1, 0, options));
    }
}

at::Tensor WanResidualBlockImpl::forward(const at::Tensor& x, WanFeatureCache& cache) const {
    const at::Tensor shortcut = conv_shortcut_ ? conv_shortcut_->forward(x) : x;
    at::Tensor hidden = conv1_->forward_cached(norm1_->forward_silu(x), cache);
    hidden = conv2_->forward_cached(norm2_->forward_silu(hidden), cache);
    return hidden.add_(shortcut);
}

WanAttentionBlockImpl::WanAttentionBlockImpl(std::int64_t dim, const c10::TensorOptions& options) {
    norm_ = register_module("norm", WanRMS_norm(dim, true, options));
    to_qkv_ = register_module("to_qkv", WanConv2d(dim, dim * 3, 1, 1, 0, options));
    proj_ = register_module("proj", WanConv2d(dim, dim, 1, 1, 0, options));
}

at::Tensor WanAttentionBlockImpl::forward(const at::Tensor& x) const {
    const std::int64_t batch = x.size(0);
    const std::int64_t channels = x.size(1);
    const std::int64_t height = x.size(3);
    const std::int64_t width = x.size(4);
    const at::Tensor images = frames_as_images(x);
    const std::int64_t count = images.size(0);
    const at::Tensor qkv = to_qkv_->forward(norm_->forward(images))
                               .reshape({count, 1, channels * 3, height * width})
                               .permute({0, 1, 3, 2}); // [B*F, 1, H*W, 3C]
    const std::vector<at::Tensor> parts = qkv.chunk(3, -1);
    const at::Tensor attended =
        core::scaled_dot_product_attention(parts[0], parts[1], parts[2]); // [B*F, 1, H*W, C]
    const at::Tensor out = proj_->forward(
        attended.squeeze(1).permute({0, 2, 1}).reshape({count, channels, height, width}));
    return images_as_frames(out, batch).add(x);
}

at::Tensor WanAttentionBlockImpl::forward(const at::Tensor& x, WanFeatureCache&) const {
    return forward(x);
}

} // namespace tuneframe::models::wan
