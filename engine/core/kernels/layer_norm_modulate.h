#pragma once

#include "engine/core/kernels/fused_kernel_checks.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <functional>

namespace tuneframe::core {

// A per-sample adaLN modulation: shift and scale [B, 1, D] or [B, D] (B may be 1 for all).
struct Modulation {
    at::Tensor shift;
    at::Tensor scale;
};

// LayerNorm over the last dim of a joint-attention block's tokens x [B, T, D] (per sample,
// `text_rows` text rows, then the video rows), then adaLN's modulation:
// norm(x) * (1 + scale) + shift, with `text` on the text rows and `video` on the others (`text`
// unused when text_rows is 0). weight and bias [D] may be undefined (no affine).
struct LayerNormModulateArgs {
    at::Tensor x;
    at::Tensor weight;
    at::Tensor bias;
    double eps = 1e-5;
    Modulation video;
    Modulation text;
    std::int64_t text_rows = 0;
};
using LayerNormModulateFunction = std::function<at::Tensor(const LayerNormModulateArgs&)>;

// The result in x's dtype, computed in the wider of x's and the modulation's: a bf16 CogVideoX
// block computes in bf16 as diffusers does, Wan in float32 over bf16 tokens (FP32LayerNorm). On
// CUDA it runs the fused kernel where the build has it (TUNEFRAME_CUDA_KERNELS), it serves the
// inputs and its first-use check passed (FusedKernelChecks); otherwise the ATen path.
at::Tensor layer_norm_modulate(const LayerNormModulateArgs& args);

// The ATen path: LayerNorm once over every row, the modulation of each segment, one concatenation.
at::Tensor layer_norm_modulate_reference(const LayerNormModulateArgs& args);

// Whether the fused kernel serves these inputs (a CUDA build with the kernels, CUDA tensors,
// float32/bf16/fp16, the modulation and weights of one dtype: x's or float32, rows of at most
// 4096 values), and the kernel itself, one launch forward and two backward, where it does.
bool layer_norm_modulate_fusable(const LayerNormModulateArgs& args);
at::Tensor layer_norm_modulate_fused(const LayerNormModulateArgs& args);

// Compares `candidate` with the ATen path on a small input of `like`'s dtypes, width, affine,
// segments and gradients (awkward row counts), forward and backward.
KernelCheckResult check_layer_norm_modulate(const LayerNormModulateFunction& candidate,
                                            const LayerNormModulateArgs& like);

} // namespace tuneframe::core
