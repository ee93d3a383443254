#pragma once

#include "engine/core/kernels/fused_kernel_checks.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>

namespace tuneframe::core {

// adaLN-zero's gated residual over a joint-attention block's tokens: x + gate * y for x and y
// [B, T, D], the first `text_rows` rows of each sample gated by `text_gate`, the others by
// `video_gate` (per-sample [B, 1, D] or [B, D]; text_gate unused when text_rows is 0).
struct GatedResidualArgs {
    at::Tensor x;
    at::Tensor y;
    at::Tensor video_gate;
    at::Tensor text_gate;
    std::int64_t text_rows = 0;
};
using GatedResidualFunction = std::function<at::Tensor(const GatedResidualArgs&)>;

// The sum in x's dtype, computed in the widest of the three dtypes (CogVideoX: bf16, as
// diffusers; Wan: float32 gates over bf16 tokens). The fused kernel on CUDA where it is built,
// serves the inputs and passed its first-use check (FusedKernelChecks); else the ATen path.
at::Tensor gated_residual(const GatedResidualArgs& args);
at::Tensor gated_residual_reference(const GatedResidualArgs& args);
// Whether the fused kernel serves these inputs (x and y of one dtype, the gates of it or
// float32, rows of at most 4096 values), and the kernel: one launch forward, one backward.
bool gated_residual_fusable(const GatedResidualArgs& args);
at::Tensor gated_residual_fused(const GatedResidualArgs& args);
// Compares `candidate` with the ATen path on a small input like `like`, forward and backward.
KernelCheckResult check_gated_residual(const GatedResidualFunction& candidate,
                                       const GatedResidualArgs& like);

} // namespace tuneframe::core
