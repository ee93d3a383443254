#pragma once

// Launchers of the fused kernels for a diffusion transformer block's small ops (adaLN LayerNorm +
// modulate, q/k LayerNorm over the head dim with rotary, the gated residual). This header and the
// .cu files behind it use the CUDA toolkit alone (raw pointers, sizes, a stream), so nvcc compiles
// them without LibTorch's headers; engine/core/kernels/*.cpp wrap them for at::Tensor and autograd.
//
// Every kernel computes in float32 and rounds once into the output's type. Row-wise reductions
// run in a fixed order (no atomics), so a launch is deterministic. Each launcher returns the
// launch's cudaError_t; an argument it cannot serve is cudaErrorInvalidValue, refused before
// anything runs.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tuneframe::core::cuda_kernels {

enum class ElementType : int { Float32, BFloat16, Float16 };

// A joint-attention block's [B, T, D] token buffer: per sample, `text_rows` text rows first,
// then the video rows. Text rows take the text modulation, video rows the video one.
struct TokenRows {
    std::int64_t batch = 0;
    std::int64_t rows = 0;  // T, per sample
    std::int64_t width = 0; // D
    std::int64_t text_rows = 0;
};

// Per-sample vectors [B, D] for each segment: element (b, d) of a segment at
// pointer + b * batch_stride + d. `text` is unused (may be null) when text_rows is 0.
struct SegmentVectors {
    const void* video = nullptr;
    const void* text = nullptr;
    std::int64_t video_batch_stride = 0;
    std::int64_t text_batch_stride = 0;
};

// Per-sample gradients [B, D], contiguous, of the parameter type. Null: not wanted.
struct SegmentGradients {
    void* video = nullptr;
    void* text = nullptr;
};

// y = LayerNorm(x) * (1 + scale) + shift over rows of D. x and y of `x_type`, contiguous;
// weight and bias [D] (null: no affine) and shift/scale of `parameter_type`, which is x_type or
// Float32. mean and rstd [B * T] float32, for the backward (null: not kept).
struct LayerNormModulateForward {
    ElementType x_type = ElementType::Float32;
    ElementType parameter_type = ElementType::Float32;
    TokenRows shape;
    const void* x = nullptr;
    const void* weight = nullptr;
    const void* bias = nullptr;
    SegmentVectors shift;
    SegmentVectors scale;
    float eps = 1e-5f;
    void* y = nullptr;
    float* mean = nullptr;
    float* rstd = nullptr;
};
// Whether the kernels serve these types and sizes (rows of up to 4096 values), whatever the
// alignment of the tensors.
bool layer_norm_modulate_supported(const LayerNormModulateForward& args);
cudaError_t layer_norm_modulate_forward(const LayerNormModulateForward& args, cudaStream_t stream);

// Its backward: dx (contiguous, x_type) from dy (contiguous, x_type), and where asked the
// gradients of shift and scale (per segment) and of weight and bias (all of the parameter type).
// `workspace` holds layer_norm_modulate_workspace_bytes() bytes, 16-byte aligned.
struct LayerNormModulateBackward {
    LayerNormModulateForward forward; // its inputs; y unused
    const void* dy = nullptr;
    void* dx = nullptr;
    SegmentGradients dshift;
    SegmentGradients dscale;
    void* dweight = nullptr;
    void* dbias = nullptr;
    void* workspace = nullptr;
};
std::size_t layer_norm_modulate_workspace_bytes(const LayerNormModulateBackward& args);
cudaError_t layer_norm_modulate_backward(const LayerNormModulateBackward& args,
                                         cudaStream_t stream);

// out = x + gate * y, gate per sample and segment. x, y and out of `x_type` with the [B, T, D]
// layout, contiguous; gate of `parameter_type` (x_type or Float32).
struct GatedResidualForward {
    ElementType x_type = ElementType::Float32;
    ElementType parameter_type = ElementType::Float32;
    TokenRows shape;
    const void* x = nullptr;
    const void* y = nullptr;
    SegmentVectors gate;
    void* out = nullptr;
};
// Whether the kernels serve these types and sizes (backward rows of up to 4096 values).
bool gated_residual_supported(const GatedResidualForward& args);
cudaError_t gated_residual_forward(const GatedResidualForward& args, cudaStream_t stream);

// Its backward: dy = dout * gate, and where asked dgate = sum over each segment's rows of
// dout * y. dx is dout itself and needs no kernel.
struct GatedResidualBackward {
    GatedResidualForward forward; // its inputs; x and out unused
    const void* dout = nullptr;
    void* dy = nullptr;
    SegmentGradients dgate;
    void* workspace = nullptr;
};
std::size_t gated_residual_workspace_bytes(const GatedResidualBackward& args);
cudaError_t gated_residual_backward(const GatedResidualBackward& args, cudaStream_t stream);

// LayerNorm over the head dim of x viewed as [B, T, H, d] (q or k), then, where cos and sin are
// given, rotary on the video rows (t >= text_rows): pairs (2i, 2i+1) of the normalised z become
// (z0 cos0 - z1 sin0, z1 cos1 + z0 sin1) with the tables [T - text_rows, d] (float32, row n for
// video token n). x is read through element strides (its last dim contiguous); y is written
// contiguous [B, T, H, d]. d is 64, 128 or 256; weight and bias [d] of `parameter_type` (x_type
// or Float32; null: no affine). mean and rstd [B * T * H] float32 (null: not kept).
struct HeadNormRotaryForward {
    ElementType x_type = ElementType::Float32;
    ElementType parameter_type = ElementType::Float32;
    std::int64_t batch = 0;
    std::int64_t rows = 0;
    std::int64_t heads = 0;
    std::int64_t head_dim = 0;
    std::int64_t text_rows = 0;
    std::int64_t x_strides[3] = {0, 0, 0}; // of B, T and H, in elements
    const void* x = nullptr;
    const void* weight = nullptr;
    const void* bias = nullptr;
    const float* cos = nullptr;
    const float* sin = nullptr;
    float eps = 1e-6f;
    void* y = nullptr;
    float* mean = nullptr;
    float* rstd = nullptr;
};
// Whether the kernels serve these types and sizes. Besides, every row of x (and of dy in the
// backward) must start on a multiple of d / 32 elements, and y, dx and the workspace on 16 bytes.
bool head_norm_rotary_supported(const HeadNormRotaryForward& args);
cudaError_t head_norm_rotary_forward(const HeadNormRotaryForward& args, cudaStream_t stream);

// Its backward: dx contiguous [B, T, H, d] from dy read through `dy_strides` (its last dim
// contiguous), and where asked dweight and dbias. `workspace`: head_norm_rotary_workspace_bytes().
struct HeadNormRotaryBackward {
    HeadNormRotaryForward forward; // its inputs; y unused
    const void* dy = nullptr;
    std::int64_t dy_strides[3] = {0, 0, 0};
    void* dx = nullptr;
    void* dweight = nullptr;
    void* dbias = nullptr;
    void* workspace = nullptr;
};
std::size_t head_norm_rotary_workspace_bytes(const HeadNormRotaryBackward& args);
cudaError_t head_norm_rotary_backward(const HeadNormRotaryBackward& args, cudaStream_t stream);

} // namespace tuneframe::core::cuda_kernels
