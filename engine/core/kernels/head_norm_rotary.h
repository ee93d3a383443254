#pragma once

#include "engine/core/kernels/fused_kernel_checks.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>

namespace tuneframe::core {

// q/k LayerNorm over the head dim of a joint-attention projection's output, then rotary on the
// video rows. x is [B, T, H * d] (or [B, T, H, d]) as the projection writes it, per sample
// `text_rows` text rows first; weight and bias [d] (or undefined: no affine); cos and sin
// [T - text_rows, d] float32 tables of the video rows, or undefined for no rotary. Rotary turns
// channel pairs (z0, z1) into (z0 cos0 - z1 sin0, z1 cos1 + z0 sin1), in float32 (diffusers'
// apply_rotary_emb, use_real).
struct HeadNormRotaryArgs {
    at::Tensor x;
    std::int64_t heads = 0;
    at::Tensor weight;
    at::Tensor bias;
    double eps = 1e-6;
    at::Tensor cos;
    at::Tensor sin;
    std::int64_t text_rows = 0;
};
using HeadNormRotaryFunction = std::function<at::Tensor(const HeadNormRotaryArgs&)>;

// -> [B, H, T, d], attention's layout, as a transposed view of [B, T, H, d] memory: the norm
// reads the projection's layout directly, with no transposed copy either way. The fused kernel
// on CUDA where it is built, serves the inputs and passed its first-use check
// (FusedKernelChecks); else the ATen path.
at::Tensor head_norm_rotary(const HeadNormRotaryArgs& args);
at::Tensor head_norm_rotary_reference(const HeadNormRotaryArgs& args);
// Whether the fused kernel serves these inputs (head dims 64, 128 and 256; x float32, bf16 or
// fp16; weights of x's dtype or float32; tables that need no gradient), and the kernel itself.
bool head_norm_rotary_fusable(const HeadNormRotaryArgs& args);
at::Tensor head_norm_rotary_fused(const HeadNormRotaryArgs& args);
// Compares `candidate` with the ATen path on a small input like `like`, forward and backward.
KernelCheckResult check_head_norm_rotary(const HeadNormRotaryFunction& candidate,
                                         const HeadNormRotaryArgs& like);

} // namespace tuneframe::core
