#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_layers.h"
#include "engine/core/bf16_convolution.h"

#include <torch/torch.h>

namespace tuneframe::models::vae {
namespace {

namespace F = torch::nn::functional;

at::Tensor nearest(const at::Tensor& input, std::vector<std::int64_t> size) {
    return F::interpolate(input, F::InterpolateFuncOptions().size(size).mode(torch::kNearest));
}

// F.interpolate(x, scale_factor=2.0) over every dimension after the channels.
at::Tensor nearest_2x(const at::Tensor& input) {
    std::vector<double> scale(static_cast<std::size_t>(input.dim() - 2), 2.0);
    return F::interpolate(input,
                          F::InterpolateFuncOptions().scale_factor(scale).mode(torch::kNearest));
}

// avg_pool1d(kernel 2, stride 2) along the frames, without diffusers' permute to [BHW, C, F]:
// the same sums and halvings, one copy fewer.
at::Tensor average_frame_pairs(const at::Tensor& input) {
    const std::int64_t frames = input.size(2);
    return (input.slice(2, 0, frames, 2) + input.slice(2, 1, frames, 2)) / 2;
}

// at::conv3d for [B, C, F, H, W] input, at::conv2d for [N, C, H, W]; the same stride and padding
// along every dimension.
at::Tensor convolve(const at::Tensor& input, const at::Tensor& weight, const at::Tensor& bias,
                    std::int64_t stride = 1, std::int64_t padding = 0) {
    const bool video = input.dim() == 5;
    return core::convolve_in_correct_layout(input, weight.size(0), [&](const at::Tensor& x) {
        return video ? at::conv3d(x, weight, bias, stride, padding)
                     : at::conv2d(x, weight, bias, stride, padding);
    });
}

} // namespace

at::Tensor ConvCache::take(std::size_t slot) {
    if (slot >= frames_.size()) {
        return {};
    }
    return std::move(frames_[slot]);
}

void ConvCache::put(std::size_t slot, at::Tensor frames) {
    if (slot >= frames_.size()) {
        frames_.resize(slot + 1);
    }
    frames_[slot] = std::move(frames);
}

CogVideoXSafeConv3dImpl::CogVideoXSafeConv3dImpl(std::int64_t in_channels,
                                                 std::int64_t out_channels,
                                                 std::int64_t kernel_size,
                                                 const c10::TensorOptions& options)
    : weight(register_parameter(
          "weight", torch::empty({out_channels, in_channels, kernel_size, kernel_size, kernel_size},
                                 options)))
    , bias(register_parameter("bias", torch::empty({out_channels}, options)))
    , kernel_size_(kernel_size) {}

at::Tensor CogVideoXSafeConv3dImpl::forward(const at::Tensor& input) const {
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    const double gib = static_cast<double>(input.numel()) * 2 / kGiB;
    if (gib <= 2) {
        return convolve(input, weight, bias);
    }
    const auto parts = static_cast<std::int64_t>(gib / 2) + 1;
    const std::vector<at::Tensor> chunks = input.chunk(parts, 2);
    std::vector<at::Tensor> outputs;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
        at::Tensor chunk = chunks[i];
        if (i > 0 && kernel_size_ > 1) {
            const at::Tensor& previous = chunks[i - 1];
            const std::int64_t overlap = kernel_size_ - 1;
            chunk = at::cat({previous.narrow(2, previous.size(2) - overlap, overlap), chunk}, 2);
        }
        outputs.push_back(convolve(chunk, weight, bias));
    }
    return at::cat(outputs, 2);
}

CogVideoXCausalConv3dImpl::CogVideoXCausalConv3dImpl(std::int64_t in_channels,
                                                     std::int64_t out_channels,
                                                     std::int64_t kernel_size,
                                                     const c10::TensorOptions& options)
    : time_pad_(kernel_size - 1)
    , space_pad_((kernel_size - 1) / 2) {
    conv_ = register_module("conv",
                            CogVideoXSafeConv3d(in_channels, out_channels, kernel_size, options));
}

at::Tensor CogVideoXCausalConv3dImpl::forward(const at::Tensor& input, ConvCache& cache) const {
    if (time_pad_ == 0 && space_pad_ == 0) {
        return conv_->forward(input);
    }
    // One buffer holds the time padding, the input and the zero border: diffusers' cat and
    // F.pad without their two intermediate copies.
    const std::int64_t frames = input.size(2);
    const std::int64_t height = input.size(3);
    const std::int64_t width = input.size(4);
    const std::vector<std::int64_t> shape = {input.size(0), input.size(1), frames + time_pad_,
                                             height + 2 * space_pad_, width + 2 * space_pad_};
    at::Tensor padded =
        space_pad_ > 0 ? at::zeros(shape, input.options()) : at::empty(shape, input.options());
    at::Tensor interior = padded.narrow(3, space_pad_, height).narrow(4, space_pad_, width);
    if (time_pad_ > 0) {
        at::Tensor previous = cache.take(cache_slot_);
        interior.narrow(2, 0, time_pad_)
            .copy_(previous.defined() ? previous : input.narrow(2, 0, 1));
    }
    interior.narrow(2, time_pad_, frames).copy_(input);
    if (time_pad_ > 0) {
        // The last frames of the time-padded input, before the spatial border.
        cache.put(cache_slot_,
                  interior.narrow(2, frames, time_pad_).clone(at::MemoryFormat::Contiguous));
    }
    return conv_->forward(padded);
}

std::size_t assign_cache_slots(torch::nn::Module& root) {
    std::size_t slot = 0;
    for (const auto& module : root.modules(/*include_self=*/false)) {
        if (auto* conv = module->as<CogVideoXCausalConv3dImpl>()) {
            conv->set_cache_slot(slot++);
        }
    }
    return slot;
}

VaeGroupNormImpl::VaeGroupNormImpl(std::int64_t groups, std::int64_t channels, double eps,
                                   const c10::TensorOptions& options)
    : weight(register_parameter("weight", torch::empty({channels}, options)))
    , bias(register_parameter("bias", torch::empty({channels}, options)))
    , groups_(groups)
    , eps_(eps) {}

at::Tensor VaeGroupNormImpl::forward(const at::Tensor& input) const {
    return at::group_norm(input, groups_, weight, bias, eps_);
}

VaeConv2dImpl::VaeConv2dImpl(std::int64_t in_channels, std::int64_t out_channels,
                             std::int64_t stride, std::int64_t padding,
                             const c10::TensorOptions& options)
    : weight(register_parameter("weight", torch::empty({out_channels, in_channels, 3, 3}, options)))
    , bias(register_parameter("bias", torch::empty({out_channels}, options)))
    , stride_(stride)
    , padding_(padding) {}

at::Tensor VaeConv2dImpl::forward_frames(const at::Tensor& input) const {
    const std::int64_t batch = input.size(0);
    const std::int64_t frames = input.size(2);
    const at::Tensor images = input.permute({0, 2, 1, 3, 4})
                                  .reshape({batch * frames, input.size(1), input.size(3),
                                            input.size(4)}); // [B*F, C, H, W]
    const at::Tensor out = convolve(images, weight, bias, stride_, padding_);
    return out.reshape({batch, frames, out.size(1), out.size(2), out.size(3)})
        .permute({0, 2, 1, 3, 4});
}

CogVideoXSpatialNorm3DImpl::CogVideoXSpatialNorm3DImpl(std::int64_t f_channels,
                                                       std::int64_t zq_channels,
                                                       std::int64_t groups,
                                                       const c10::TensorOptions& options) {
    norm_layer_ = register_module("norm_layer", VaeGroupNorm(groups, f_channels, 1e-6, options));
    conv_y_ = register_module("conv_y", CogVideoXCausalConv3d(zq_channels, f_channels, 1, options));
    conv_b_ = register_module("conv_b", CogVideoXCausalConv3d(zq_channels, f_channels, 1, options));
}

at::Tensor CogVideoXSpatialNorm3DImpl::forward(const at::Tensor& f, const at::Tensor& zq,
                                               ConvCache& cache) const {
    const std::int64_t frames = f.size(2);
    const std::int64_t height = f.size(3);
    const std::int64_t width = f.size(4);
    at::Tensor z;
    if (frames > 1 && frames % 2 == 1) {
        // The first latent frame stands for the first video frame alone.
        z = at::cat({nearest(zq.narrow(2, 0, 1), {1, height, width}),
                     nearest(zq.narrow(2, 1, zq.size(2) - 1), {frames - 1, height, width})},
                    2);
    } else {
        z = nearest(zq, {frames, height, width});
    }
    at::Tensor out = norm_layer_->forward(f);
    out.mul_(conv_y_->forward(z, cache));
    return out.add_(conv_b_->forward(z, cache));
}

CogVideoXDownsample3DImpl::CogVideoXDownsample3DImpl(std::int64_t channels, bool compress_time,
                                                     const c10::TensorOptions& options)
    : compress_time_(compress_time) {
    conv_ = register_module("conv", VaeConv2d(channels, channels, 2, 0, options));
}

at::Tensor CogVideoXDownsample3DImpl::forward(const at::Tensor& input) const {
    at::Tensor x = input;
    if (compress_time_) {
        const std::int64_t frames = x.size(2);
        if (frames % 2 == 0) {
            x = average_frame_pairs(x);
        } else if (frames > 1) {
            // An odd clip keeps its first frame: the causal VAE codes it on its own.
            x = at::cat({x.narrow(2, 0, 1), average_frame_pairs(x.narrow(2, 1, frames - 1))}, 2);
        }
    }
    x = at::constant_pad_nd(x, {0, 1, 0, 1}, 0);
    return conv_->forward_frames(x);
}

CogVideoXUpsample3DImpl::CogVideoXUpsample3DImpl(std::int64_t channels, bool compress_time,
                                                 const c10::TensorOptions& options)
    : compress_time_(compress_time) {
    conv_ = register_module("conv", VaeConv2d(channels, channels, 1, 1, options));
}

at::Tensor CogVideoXUpsample3DImpl::forward(const at::Tensor& input) const {
    const std::int64_t frames = input.size(2);
    at::Tensor x;
    if (compress_time_ && frames > 1 && frames % 2 == 1) {
        x = at::cat({nearest_2x(input.select(2, 0)).unsqueeze(2),
                     nearest_2x(input.narrow(2, 1, frames - 1))},
                    2);
    } else if (compress_time_ && frames > 1) {
        x = nearest_2x(input);
    } else if (compress_time_) {
        x = nearest_2x(input.squeeze(2)).unsqueeze(2);
    } else {
        const std::int64_t batch = input.size(0);
        const at::Tensor images =
            input.permute({0, 2, 1, 3, 4})
                .reshape({batch * frames, input.size(1), input.size(3), input.size(4)});
        const at::Tensor up = nearest_2x(images);
        x = up.reshape({batch, frames, up.size(1), up.size(2), up.size(3)})
                .permute({0, 2, 1, 3, 4});
    }
    return conv_->forward_frames(x);
}

} // namespace tuneframe::models::vae
