// The gated residual x + gate * y of an adaLN-zero block, text and video rows gated apart, in
// one pass. Forward: elementwise, a vector of 16 bytes per thread, a row per block row. Backward:
// one block per chunk of one segment's rows writes dy = dout * gate and keeps each column's sum of
// dout * y, reduced over the chunks by sum_chunks_by_segment.
#include "engine/core/kernels/cuda/kernel_support.cuh"

namespace tuneframe::core::cuda_kernels {
namespace {

using detail::ChunkPlan;
using detail::load;
using detail::store;

constexpr int kForwardThreads = 256;

template <typename P>
__device__ __forceinline__ const P* gate_row(const SegmentVectors& gate, bool text,
                                             std::int64_t sample) {
    return text ? static_cast<const P*>(gate.text) + sample * gate.text_batch_stride
                : static_cast<const P*>(gate.video) + sample * gate.video_batch_stride;
}

// One row per blockIdx.x, kForwardThreads vectors of it per blockIdx.y: no division per element.
template <typename T, typename P, int VEC>
__global__ void __launch_bounds__(kForwardThreads) forward_kernel(const GatedResidualForward a) {
    const std::int64_t width = a.shape.width;
    const std::int64_t index =
        static_cast<std::int64_t>(blockIdx.y) * kForwardThreads + threadIdx.x;
    if (index * VEC >= width) {
        return;
    }
    const std::int64_t row = blockIdx.x;
    const std::int64_t sample = row / a.shape.rows;
    const bool text = row - sample * a.shape.rows < a.shape.text_rows;
    const std::int64_t element = row * width + index * VEC;
    float x[VEC], y[VEC], g[VEC];
    load<T, VEC>(static_cast<const T*>(a.x) + element, x);
    load<T, VEC>(static_cast<const T*>(a.y) + element, y);
    load<P, VEC>(gate_row<P>(a.gate, text, sample) + index * VEC, g);
#pragma unroll
    for (int i = 0; i < VEC; ++i) {
        x[i] += g[i] * y[i];
    }
    store<T, VEC>(static_cast<T*>(a.out) + element, x);
}

template <typename T, typename P, int VEC, int ITERS, bool SUMS>
__global__ void __launch_bounds__(detail::kMaxRowThreads)
    backward_kernel(const GatedResidualBackward a, const ChunkPlan plan) {
    const GatedResidualForward& f = a.forward;
    const ChunkPlan::Chunk chunk = plan.chunk(blockIdx.x);
    const std::int64_t width = f.shape.width;
    const std::int64_t vectors = width / VEC;
    const P* gate = gate_row<P>(f.gate, chunk.text, chunk.sample);
    float g[ITERS][VEC], sums[ITERS][VEC];
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
        if (index < vectors) {
            load<P, VEC>(gate + index * VEC, g[k]);
        }
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            sums[k][i] = 0.f;
        }
    }
    for (std::int64_t row = chunk.begin; row < chunk.end; ++row) {
        const T* dout = static_cast<const T*>(a.dout) + row * width;
        const T* y = static_cast<const T*>(f.y) + row * width;
        T* dy = static_cast<T*>(a.dy) + row * width;
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
            if (index < vectors) {
                float d[VEC], out[VEC];
                load<T, VEC>(dout + index * VEC, d);
                if constexpr (SUMS) {
                    float values[VEC];
                    load<T, VEC>(y + index * VEC, values);
#pragma unroll
                    for (int i = 0; i < VEC; ++i) {
                        sums[k][i] += d[i] * values[i];
                    }
                }
#pragma unroll
                for (int i = 0; i < VEC; ++i) {
                    out[i] = d[i] * g[k][i];
                }
                store<T, VEC>(dy + index * VEC, out);
            }
        }
    }
    if constexpr (SUMS) {
        float* partials =
            static_cast<float*>(a.workspace) + static_cast<std::int64_t>(blockIdx.x) * width;
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
            if (index < vectors) {
                store<float, VEC>(partials + index * VEC, sums[k]);
            }
        }
    }
}

bool valid(const GatedResidualForward& f) {
    const TokenRows& shape = f.shape;
    return shape.batch > 0 && shape.rows > 0 && shape.width > 0 && shape.text_rows >= 0 &&
           shape.text_rows <= shape.rows && shape.batch * shape.rows <= 0x7fffffff &&
           shape.width <= 65535LL * kForwardThreads && f.gate.video &&
           (shape.text_rows == 0 || f.gate.text);
}

template <typename T, typename P>
bool gate_aligned(const SegmentVectors& gate, bool text) {
    constexpr int kVec = 16 / sizeof(T);
    constexpr std::size_t kBytes = sizeof(P) * kVec > 16 ? 16 : sizeof(P) * kVec;
    return detail::aligned(gate.video, kBytes) && gate.video_batch_stride % kVec == 0 &&
           (!text || (detail::aligned(gate.text, kBytes) && gate.text_batch_stride % kVec == 0));
}

bool wants_sums(const GatedResidualBackward& a) {
    return a.dgate.video || a.dgate.text;
}

} // namespace

bool gated_residual_supported(const GatedResidualForward& a) {
    if (!valid(a)) {
        return false;
    }
    return detail::row_kernels_cover(a.x_type, a.parameter_type, a.shape.width);
}

cudaError_t gated_residual_forward(const GatedResidualForward& a, cudaStream_t stream) {
    if (!valid(a) || !a.x || !a.y || !a.out) {
        return cudaErrorInvalidValue;
    }
    return detail::with_types(a.x_type, a.parameter_type, [&](auto x_tag, auto parameter_tag) {
        using T = decltype(x_tag);
        using P = decltype(parameter_tag);
        constexpr int kVec = 16 / sizeof(T);
        const bool vector = a.shape.width % kVec == 0 && detail::aligned(a.x, 16) &&
                            detail::aligned(a.y, 16) && detail::aligned(a.out, 16) &&
                            gate_aligned<T, P>(a.gate, a.shape.text_rows > 0);
        const std::int64_t vectors = vector ? a.shape.width / kVec : a.shape.width;
        const dim3 grid(static_cast<unsigned>(a.shape.batch * a.shape.rows),
                        static_cast<unsigned>(detail::divide_up(vectors, kForwardThreads)));
        if (vector) {
            forward_kernel<T, P, kVec><<<grid, kForwardThreads, 0, stream>>>(a);
        } else {
            forward_kernel<T, P, 1><<<grid, kForwardThreads, 0, stream>>>(a);
        }
        return cudaGetLastError();
    });
}

std::size_t gated_residual_workspace_bytes(const GatedResidualBackward& a) {
    if (!valid(a.forward) || !wants_sums(a)) {
        return 0;
    }
    const ChunkPlan plan = detail::plan_chunks(a.forward.shape);
    return static_cast<std::size_t>(plan.count()) *
           static_cast<std::size_t>(a.forward.shape.width) * sizeof(float);
}

cudaError_t gated_residual_backward(const GatedResidualBackward& a, cudaStream_t stream) {
    const GatedResidualForward& f = a.forward;
    const bool sums = wants_sums(a);
    if (!valid(f) || !a.dout || !a.dy || (sums && (!f.y || !detail::aligned(a.workspace, 16)))) {
        return cudaErrorInvalidValue;
    }
    const ChunkPlan plan = detail::plan_chunks(f.shape);
    const cudaError_t launched =
        detail::with_types(f.x_type, f.parameter_type, [&](auto x_tag, auto parameter_tag) {
            using T = decltype(x_tag);
            using P = decltype(parameter_tag);
            const bool aligned = detail::aligned(a.dout, 16) && detail::aligned(a.dy, 16) &&
                                 (!sums || detail::aligned(f.y, 16)) &&
                                 gate_aligned<T, P>(f.gate, f.shape.text_rows > 0);
            const detail::RowCover cover =
                detail::cover_row(f.shape.width, 16 / sizeof(T), aligned);
            const dim3 grid(static_cast<unsigned>(plan.count()));
            return detail::with_cover<16 / sizeof(T)>(cover, [&](auto vec, auto iterations) {
                constexpr int kVec = decltype(vec)::value;
                constexpr int kIterations = decltype(iterations)::value;
                if (sums) {
                    backward_kernel<T, P, kVec, kIterations, true>
                        <<<grid, cover.threads, 0, stream>>>(a, plan);
                } else {
                    backward_kernel<T, P, kVec, kIterations, false>
                        <<<grid, cover.threads, 0, stream>>>(a, plan);
                }
                return cudaGetLastError();
            });
        });
    if (launched != cudaSuccess || !sums) {
        return launched;
    }
    return detail::sum_chunks_by_segment(static_cast<const float*>(a.workspace), plan, 1,
                                         f.shape.width, f.parameter_type, &a.dgate, 1, stream);
}

} // namespace tuneframe::core::cuda_kernels
