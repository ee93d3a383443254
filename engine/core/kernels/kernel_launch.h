#pragma once

// What the wrappers of the engine's own CUDA kernels (engine/core/kernels/cuda/) share: dtype
// mapping, the current stream, workspaces and launch errors. CUDA builds with
// TUNEFRAME_CUDA_KERNELS only.
#ifdef TUNEFRAME_CUDA_KERNELS

#include "engine/core/kernels/cuda/block_kernels.h"

#include <ATen/Tensor.h>

#include <cstddef>
#include <optional>

namespace tuneframe::core::kernel_launch {

// The kernels' element type for a dtype they serve (float32, bfloat16, float16).
std::optional<cuda_kernels::ElementType> element_type(c10::ScalarType type);

// The current CUDA stream of `tensor`'s device, as LibTorch's own kernels use it.
cudaStream_t current_stream(const at::Tensor& tensor);

// Throws an Internal error naming `kernel` when a launch failed.
void check(cudaError_t status, const char* kernel);

// `bytes` of float32 scratch on `like`'s device (the caching allocator's blocks are aligned far
// beyond the 16 bytes the kernels need); undefined for 0.
at::Tensor workspace(std::size_t bytes, const at::Tensor& like);

// `tensor` contiguous and its data on 16 bytes, copied only where it is not.
at::Tensor contiguous_aligned(const at::Tensor& tensor);

// Whether `vector` is a per-sample vector for tokens x [B, T, D]: [B or 1, 1, D] or [B or 1, D]
// on x's device, D contiguous, of dtype `type`.
bool fits_segment_vector(const at::Tensor& vector, const at::Tensor& x, c10::ScalarType type);
// Whether `vector` is undefined or a contiguous [D] on x's device of dtype `type`.
bool fits_row_vector(const at::Tensor& vector, const at::Tensor& x, c10::ScalarType type);

// The per-sample vectors of the video and the text segment (text undefined: none); one sample's
// vector serves every sample (batch stride 0).
cuda_kernels::SegmentVectors segment_vectors(const at::Tensor& video, const at::Tensor& text);
// A segment's [B, D] gradient in the shape of its per-sample vector, summed over the batch where
// one sample's vector served every sample; undefined stays undefined.
at::Tensor shaped_like(const at::Tensor& gradient, const at::Tensor& vector);

// A tensor's data pointer, or null for an undefined one.
const void* data_or_null(const at::Tensor& tensor);
void* mutable_data_or_null(const at::Tensor& tensor);

} // namespace tuneframe::core::kernel_launch

#endif
