#include "engine/core/kernels/kernel_launch.h"

#ifdef TUNEFRAME_CUDA_KERNELS

#include "engine/core/error.h"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>

#include <cstdint>
#include <string>

namespace tuneframe::core::kernel_launch {

std::optional<cuda_kernels::ElementType> element_type(c10::ScalarType type) {
    switch (type) {
    case c10::ScalarType::Float:
        return cuda_kernels::ElementType::Float32;
    case c10::ScalarType::BFloat16:
        return cuda_kernels::ElementType::BFloat16;
    case c10::ScalarType::Half:
        return cuda_kernels::ElementType::Float16;
    default:
        return std::nullopt;
    }
}

cudaStream_t current_stream(const at::Tensor& tensor) {
    return at::cuda::getCurrentCUDAStream(tensor.device().index()).stream();
}

void check(cudaError_t status, const char* kernel) {
    if (status != cudaSuccess) {
        throw Error(ErrorCode::Internal,
                    std::string("The fused CUDA kernel ") + kernel +
                        " could not run: " + cudaGetErrorString(status) + ".",
                    "Set TUNEFRAME_FUSED_KERNELS=0 to run without the fused kernels, and report "
                    "this with the engine log.");
    }
}

at::Tensor workspace(std::size_t bytes, const at::Tensor& like) {
    if (bytes == 0) {
        return {};
    }
    const auto floats = static_cast<std::int64_t>((bytes + sizeof(float) - 1) / sizeof(float));
    return at::empty({floats}, like.options().dtype(at::kFloat));
}

at::Tensor contiguous_aligned(const at::Tensor& tensor) {
    at::Tensor result = tensor.contiguous();
    if (reinterpret_cast<std::uintptr_t>(result.data_ptr()) % 16 != 0) {
        result = result.clone(at::MemoryFormat::Contiguous);
    }
    return result;
}

bool fits_segment_vector(const at::Tensor& vector, const at::Tensor& x, c10::ScalarType type) {
    if (!vector.defined()) {
        return false;
    }
    const std::int64_t width = x.size(-1);
    const bool shaped = (vector.dim() == 2 && vector.size(1) == width) ||
                        (vector.dim() == 3 && vector.size(1) == 1 && vector.size(2) == width);
    return shaped && vector.device() == x.device() && vector.scalar_type() == type &&
           vector.stride(-1) == 1 && (vector.size(0) == x.size(0) || vector.size(0) == 1);
}

bool fits_row_vector(const at::Tensor& vector, const at::Tensor& x, c10::ScalarType type) {
    return !vector.defined() ||
           (vector.dim() == 1 && vector.size(0) == x.size(-1) && vector.device() == x.device() &&
            vector.scalar_type() == type && vector.is_contiguous());
}

cuda_kernels::SegmentVectors segment_vectors(const at::Tensor& video, const at::Tensor& text) {
    cuda_kernels::SegmentVectors vectors;
    vectors.video = video.data_ptr();
    vectors.video_batch_stride = video.size(0) == 1 ? 0 : video.stride(0);
    if (text.defined()) {
        vectors.text = text.data_ptr();
        vectors.text_batch_stride = text.size(0) == 1 ? 0 : text.stride(0);
    }
    return vectors;
}

at::Tensor shaped_like(const at::Tensor& gradient, const at::Tensor& vector) {
    if (!gradient.defined()) {
        return {};
    }
    if (vector.size(0) == 1 && gradient.size(0) > 1) {
        return gradient.sum(0, /*keepdim=*/true).view(vector.sizes());
    }
    return gradient.view(vector.sizes());
}

const void* data_or_null(const at::Tensor& tensor) {
    return tensor.defined() ? tensor.data_ptr() : nullptr;
}

void* mutable_data_or_null(const at::Tensor& tensor) {
    return tensor.defined() ? tensor.data_ptr() : nullptr;
}

} // namespace tuneframe::core::kernel_launch

#endif
