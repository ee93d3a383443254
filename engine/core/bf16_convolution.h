#pragma once

// oneDNN 3.7 (Debian 13's LibTorch 2.6) computes bfloat16 convolutions on AVX-512 CPUs wrongly in
// the plain layout when the output channels are not a multiple of 16: the CogVideoX decoder's
// conv_out (128 -> 3) was off by 4.6 where bfloat16 allows 0.06, varying with the thread count.
// Its channels-last kernels are right, and for those shapes faster too (17.5 vs 31.6 ms at 2
// threads on 1x128x5x120x180), so such convolutions take that layout on the CPU; every other one
// keeps the plain layout, where channels-last costs the two conversions (18.8 vs 24.3 ms at
// 128 -> 128). Both families' VAEs convolve through this.

#include <ATen/ATen.h>

#include <cstdint>

namespace tuneframe::core {

inline bool bf16_convolution_needs_channels_last(const at::Tensor& input,
                                                 std::int64_t out_channels) {
    return input.device().is_cpu() && input.scalar_type() == at::kBFloat16 &&
           out_channels % 16 != 0;
}

// `run(input)` (a 2-D or 3-D convolution of [N, C, H, W] or [B, C, F, H, W] input), in the layout
// that computes it right; the result is contiguous either way.
template <typename Run>
at::Tensor convolve_in_correct_layout(const at::Tensor& input, std::int64_t out_channels,
                                      const Run& run) {
    if (!bf16_convolution_needs_channels_last(input, out_channels)) {
        return run(input);
    }
    const auto format =
        input.dim() == 5 ? at::MemoryFormat::ChannelsLast3d : at::MemoryFormat::ChannelsLast;
    return run(input.contiguous(format)).contiguous();
}

} // namespace tuneframe::core
