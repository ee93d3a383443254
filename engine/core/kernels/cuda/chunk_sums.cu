// The reduction step the backward kernels share: per-chunk column sums into totals, in chunk
// order, so the result does not depend on scheduling.
#include "engine/core/kernels/cuda/kernel_support.cuh"

namespace tuneframe::core::cuda_kernels::detail {
namespace {

constexpr int kMaxOutputs = 4;
constexpr int kColumns = 256;

template <typename Target>
struct Targets {
    Target target[kMaxOutputs];
};

template <typename T>
__global__ void __launch_bounds__(kColumns)
    sum_total_kernel(const float* partials, std::int64_t chunks, int quantities, int first,
                     std::int64_t width, Targets<void*> out) {
    const std::int64_t column = static_cast<std::int64_t>(blockIdx.x) * kColumns + threadIdx.x;
    T* target = static_cast<T*>(out.target[blockIdx.y]);
    const int q = first + static_cast<int>(blockIdx.y);
    if (column >= width || !target) {
        return;
    }
    float sum = 0.f;
    for (std::int64_t c = 0; c < chunks; ++c) {
        sum += partials[(c * quantities + q) * width + column];
    }
    target[column] = from_float<T>(sum);
}

template <typename T>
__global__ void __launch_bounds__(kColumns)
    sum_segment_kernel(const float* partials, ChunkPlan plan, int quantities, std::int64_t width,
                       Targets<SegmentGradients> out) {
    const std::int64_t column = static_cast<std::int64_t>(blockIdx.x) * kColumns + threadIdx.x;
    const std::int64_t sample = blockIdx.y >> 1;
    const bool text = (blockIdx.y & 1u) != 0;
    const int q = static_cast<int>(blockIdx.z);
    T* target = static_cast<T*>(text ? out.target[q].text : out.target[q].video);
    if (column >= width || !target) {
        return;
    }
    const std::int64_t first = plan.first_of(sample, text);
    const std::int64_t last = first + plan.count_of(text);
    float sum = 0.f;
    for (std::int64_t c = first; c < last; ++c) {
        sum += partials[(c * quantities + q) * width + column];
    }
    target[sample * width + column] = from_float<T>(sum);
}

} // namespace

std::size_t element_size(ElementType type) {
    return type == ElementType::Float32 ? 4 : 2;
}

ChunkPlan plan_chunks(const TokenRows& shape) {
    int device = 0;
    int processors = 132;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device) !=
            cudaSuccess) {
        processors = 132;
        (void)cudaGetLastError(); // no device here: the plan only sizes the work
    }
    const std::int64_t total = shape.batch * shape.rows;
    const std::int64_t wanted = static_cast<std::int64_t>(processors) * 16;
    ChunkPlan plan;
    plan.rows = shape.rows;
    plan.text_rows = shape.text_rows;
    plan.batch = shape.batch;
    plan.chunk_rows = divide_up(total, wanted) > 8 ? divide_up(total, wanted) : 8;
    plan.text_chunks = divide_up(shape.text_rows, plan.chunk_rows);
    plan.video_chunks = divide_up(shape.rows - shape.text_rows, plan.chunk_rows);
    return plan;
}

cudaError_t sum_chunks_total(const float* partials, std::int64_t chunks, int quantities, int first,
                             std::int64_t width, ElementType type, void* const* out, int count,
                             cudaStream_t stream) {
    if (count > kMaxOutputs || first + count > quantities) {
        return cudaErrorInvalidValue;
    }
    Targets<void*> targets{};
    bool any = false;
    for (int i = 0; i < count; ++i) {
        targets.target[i] = out[i];
        any = any || out[i];
    }
    if (!any) {
        return cudaSuccess;
    }
    const dim3 grid(static_cast<unsigned>(divide_up(width, kColumns)),
                    static_cast<unsigned>(count));
    switch (type) {
    case ElementType::Float32:
        sum_total_kernel<float>
            <<<grid, kColumns, 0, stream>>>(partials, chunks, quantities, first, width, targets);
        break;
    case ElementType::BFloat16:
        sum_total_kernel<__nv_bfloat16>
            <<<grid, kColumns, 0, stream>>>(partials, chunks, quantities, first, width, targets);
        break;
    case ElementType::Float16:
        sum_total_kernel<__half>
            <<<grid, kColumns, 0, stream>>>(partials, chunks, quantities, first, width, targets);
        break;
    }
    return cudaGetLastError();
}

cudaError_t sum_chunks_by_segment(const float* partials, const ChunkPlan& plan, int quantities,
                                  std::int64_t width, ElementType type, const SegmentGradients* out,
                                  int count, cudaStream_t stream) {
    if (count > kMaxOutputs || count > quantities) {
        return cudaErrorInvalidValue;
    }
    Targets<SegmentGradients> targets{};
    bool any = false;
    for (int i = 0; i < count; ++i) {
        targets.target[i] = out[i];
        any = any || out[i].video || out[i].text;
    }
    if (!any || plan.batch == 0) {
        return cudaSuccess;
    }
    const dim3 grid(static_cast<unsigned>(divide_up(width, kColumns)),
                    static_cast<unsigned>(plan.batch * 2), static_cast<unsigned>(count));
    switch (type) {
    case ElementType::Float32:
        sum_segment_kernel<float>
            <<<grid, kColumns, 0, stream>>>(partials, plan, quantities, width, targets);
        break;
    case ElementType::BFloat16:
        sum_segment_kernel<__nv_bfloat16>
            <<<grid, kColumns, 0, stream>>>(partials, plan, quantities, width, targets);
        break;
    case ElementType::Float16:
        sum_segment_kernel<__half>
            <<<grid, kColumns, 0, stream>>>(partials, plan, quantities, width, targets);
        break;
    }
    return cudaGetLastError();
}

} // namespace tuneframe::core::cuda_kernels::detail
