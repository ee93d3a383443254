// adaLN: LayerNorm over D, then (1 + scale) and shift of the row's segment, in one pass over a
// [B, T, D] buffer whose text and video rows each carry their own modulation.
//
// Forward: one block per row; each thread keeps its columns in registers, so the row is read
// once and the variance is taken about the mean (two reductions, no E[x^2] - mean^2).
// Backward: one block per chunk of rows of one segment (ChunkPlan). Per row it forms dx from the
// two row sums of LayerNorm's backward; across the chunk's rows each thread accumulates its
// columns' sums for dshift, dscale, dweight and dbias in registers, written once per chunk and
// reduced by sum_chunks_*.
#include "engine/core/kernels/cuda/kernel_support.cuh"

namespace tuneframe::core::cuda_kernels {
namespace {

using detail::ChunkPlan;
using detail::load;
using detail::load_or;
using detail::store;

constexpr int kQuantities = 4; // dshift, dscale, dweight, dbias

template <typename P>
__device__ __forceinline__ const P* segment_row(const SegmentVectors& vectors, bool text,
                                                std::int64_t sample) {
    return text ? static_cast<const P*>(vectors.text) + sample * vectors.text_batch_stride
                : static_cast<const P*>(vectors.video) + sample * vectors.video_batch_stride;
}

template <typename T, typename P, int VEC, int ITERS>
__global__ void __launch_bounds__(detail::kMaxRowThreads)
    forward_kernel(const LayerNormModulateForward a) {
    __shared__ float2 scratch[32];
    const std::int64_t row = blockIdx.x;
    const std::int64_t width = a.shape.width;
    const std::int64_t vectors = width / VEC;
    const std::int64_t sample = row / a.shape.rows;
    const bool text = row % a.shape.rows < a.shape.text_rows;

    const T* x = static_cast<const T*>(a.x) + row * width;
    float v[ITERS][VEC];
    float sum = 0.f;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
        if (index < vectors) {
            load<T, VEC>(x + index * VEC, v[k]);
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
                sum += v[k][i];
            }
        }
    }
    const float mean = detail::block_sum(sum, scratch) / static_cast<float>(width);
    float squares = 0.f;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
        if (index < vectors) {
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
                const float centred = v[k][i] - mean;
                squares += centred * centred;
            }
        }
    }
    const float rstd =
        rsqrtf(detail::block_sum(squares, scratch) / static_cast<float>(width) + a.eps);

    const P* weight = static_cast<const P*>(a.weight);
    const P* bias = static_cast<const P*>(a.bias);
    const P* shift = segment_row<P>(a.shift, text, sample);
    const P* scale = segment_row<P>(a.scale, text, sample);
    T* y = static_cast<T*>(a.y) + row * width;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
        if (index < vectors) {
            const std::int64_t column = index * VEC;
            float w[VEC], b[VEC], s[VEC], h[VEC], out[VEC];
            load_or<P, VEC>(weight ? weight + column : nullptr, 1.f, w);
            load_or<P, VEC>(bias ? bias + column : nullptr, 0.f, b);
            load<P, VEC>(scale + column, s);
            load<P, VEC>(shift + column, h);
#pragma unroll
            for (int i = 0; i < VEC; ++i) {
                const float normed = (v[k][i] - mean) * rstd * w[i] + b[i];
                out[i] = normed * (1.f + s[i]) + h[i];
            }
            store<T, VEC>(y + column, out);
        }
    }
    if (threadIdx.x == 0 && a.mean) {
        a.mean[row] = mean;
        a.rstd[row] = rstd;
    }
}

// SUMS: whether any column sum is wanted (a LoRA run's frozen modulation and norm want none,
// and without the accumulators a thread needs half the registers).
template <typename T, typename P, int VEC, int ITERS, bool SUMS>
__global__ void __launch_bounds__(detail::kMaxRowThreads)
    backward_kernel(const LayerNormModulateBackward a, const ChunkPlan plan) {
    __shared__ float2 scratch[32];
    const LayerNormModulateForward& f = a.forward;
    const ChunkPlan::Chunk chunk = plan.chunk(blockIdx.x);
    const std::int64_t width = f.shape.width;
    const std::int64_t vectors = width / VEC;
    const P* weight = static_cast<const P*>(f.weight);
    const P* bias = static_cast<const P*>(f.bias);
    const P* scale = segment_row<P>(f.scale, chunk.text, chunk.sample);

    float w[ITERS][VEC], b[ITERS][VEC], s[ITERS][VEC];
    float sum_dy[ITERS][VEC], sum_dyz[ITERS][VEC], sum_dzn[ITERS][VEC], sum_dz[ITERS][VEC];
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t column = (threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x) * VEC;
        if (column < width) {
            load_or<P, VEC>(weight ? weight + column : nullptr, 1.f, w[k]);
            if constexpr (SUMS) {
                load_or<P, VEC>(bias ? bias + column : nullptr, 0.f, b[k]);
            }
            load<P, VEC>(scale + column, s[k]);
        }
#pragma unroll
        for (int i = 0; i < VEC; ++i) {
            sum_dy[k][i] = sum_dyz[k][i] = sum_dzn[k][i] = sum_dz[k][i] = 0.f;
        }
    }

    for (std::int64_t row = chunk.begin; row < chunk.end; ++row) {
        const float mean = f.mean[row];
        const float rstd = f.rstd[row];
        const T* x = static_cast<const T*>(f.x) + row * width;
        const T* dy = static_cast<const T*>(a.dy) + row * width;
        float n[ITERS][VEC], dn[ITERS][VEC];
        float row_dn = 0.f, row_dnn = 0.f;
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
            if (index < vectors) {
                float g[VEC];
                load<T, VEC>(x + index * VEC, n[k]);
                load<T, VEC>(dy + index * VEC, g);
#pragma unroll
                for (int i = 0; i < VEC; ++i) {
                    n[k][i] = (n[k][i] - mean) * rstd;
                    const float dz = g[i] * (1.f + s[k][i]);
                    if constexpr (SUMS) {
                        sum_dy[k][i] += g[i];
                        sum_dyz[k][i] += g[i] * (n[k][i] * w[k][i] + b[k][i]);
                        sum_dzn[k][i] += dz * n[k][i];
                        sum_dz[k][i] += dz;
                    }
                    dn[k][i] = dz * w[k][i];
                    row_dn += dn[k][i];
                    row_dnn += dn[k][i] * n[k][i];
                }
            }
        }
        const float2 sums = detail::block_sum2(row_dn, row_dnn, scratch);
        const float mean_dn = sums.x / static_cast<float>(width);
        const float mean_dnn = sums.y / static_cast<float>(width);
        T* dx = static_cast<T*>(a.dx) + row * width;
#pragma unroll
        for (int k = 0; k < ITERS; ++k) {
            const std::int64_t index = threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x;
            if (index < vectors) {
                float out[VEC];
#pragma unroll
                for (int i = 0; i < VEC; ++i) {
                    out[i] = rstd * (dn[k][i] - mean_dn - n[k][i] * mean_dnn);
                }
                store<T, VEC>(dx + index * VEC, out);
            }
        }
    }

    if constexpr (!SUMS) {
        return;
    }
    float* partials = static_cast<float*>(a.workspace) +
                      static_cast<std::int64_t>(blockIdx.x) * kQuantities * width;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const std::int64_t column = (threadIdx.x + static_cast<std::int64_t>(k) * blockDim.x) * VEC;
        if (column < width) {
            store<float, VEC>(partials + column, sum_dy[k]);
            store<float, VEC>(partials + width + column, sum_dyz[k]);
            store<float, VEC>(partials + 2 * width + column, sum_dzn[k]);
            store<float, VEC>(partials + 3 * width + column, sum_dz[k]);
        }
    }
}

bool vector_aligned(const SegmentVectors& vectors, std::size_t bytes, int elements, bool has_text) {
    return detail::aligned(vectors.video, bytes) && vectors.video_batch_stride % elements == 0 &&
           (!has_text ||
            (detail::aligned(vectors.text, bytes) && vectors.text_batch_stride % elements == 0));
}

template <typename T, typename P>
detail::RowCover cover_for(const LayerNormModulateForward& f, const void* dy, const void* dx) {
    constexpr int kVec = 16 / sizeof(T);
    constexpr std::size_t kParameterBytes = sizeof(P) * kVec > 16 ? 16 : sizeof(P) * kVec;
    const bool text = f.shape.text_rows > 0;
    const bool aligned = detail::aligned(f.x, 16) && detail::aligned(f.y, 16) &&
                         detail::aligned(dy, 16) && detail::aligned(dx, 16) &&
                         detail::aligned(f.weight, kParameterBytes) &&
                         detail::aligned(f.bias, kParameterBytes) &&
                         vector_aligned(f.shift, kParameterBytes, kVec, text) &&
                         vector_aligned(f.scale, kParameterBytes, kVec, text);
    return detail::cover_row(f.shape.width, kVec, aligned);
}

bool valid(const LayerNormModulateForward& f) {
    const TokenRows& shape = f.shape;
    return shape.batch > 0 && shape.rows > 0 && shape.width > 0 && shape.text_rows >= 0 &&
           shape.text_rows <= shape.rows && shape.batch * shape.rows <= 0x7fffffff && f.x &&
           f.shift.video && f.scale.video &&
           (shape.text_rows == 0 || (f.shift.text && f.scale.text));
}

bool wants_modulation_sums(const LayerNormModulateBackward& a) {
    return a.dshift.video || a.dshift.text || a.dscale.video || a.dscale.text;
}

bool wants_affine_sums(const LayerNormModulateBackward& a) {
    return a.dweight || a.dbias;
}

} // namespace

bool layer_norm_modulate_supported(const LayerNormModulateForward& a) {
    if (!valid(a)) {
        return false;
    }
    // The backward's dy and dx are fresh allocations: only the row width can fail.
    return detail::row_kernels_cover(a.x_type, a.parameter_type, a.shape.width);
}

cudaError_t layer_norm_modulate_forward(const LayerNormModulateForward& a, cudaStream_t stream) {
    if (!valid(a) || !a.y) {
        return cudaErrorInvalidValue;
    }
    return detail::with_types(a.x_type, a.parameter_type, [&](auto x_tag, auto parameter_tag) {
        using T = decltype(x_tag);
        using P = decltype(parameter_tag);
        const detail::RowCover cover = cover_for<T, P>(a, a.y, a.y);
        const dim3 grid(static_cast<unsigned>(a.shape.batch * a.shape.rows));
        return detail::with_cover<16 / sizeof(T)>(cover, [&](auto vec, auto iterations) {
            forward_kernel<T, P, decltype(vec)::value, decltype(iterations)::value>
                <<<grid, cover.threads, 0, stream>>>(a);
            return cudaGetLastError();
        });
    });
}

std::size_t layer_norm_modulate_workspace_bytes(const LayerNormModulateBackward& a) {
    if (!valid(a.forward) || (!wants_modulation_sums(a) && !wants_affine_sums(a))) {
        return 0;
    }
    const ChunkPlan plan = detail::plan_chunks(a.forward.shape);
    return static_cast<std::size_t>(plan.count()) * kQuantities *
           static_cast<std::size_t>(a.forward.shape.width) * sizeof(float);
}

cudaError_t layer_norm_modulate_backward(const LayerNormModulateBackward& a, cudaStream_t stream) {
    const LayerNormModulateForward& f = a.forward;
    const bool modulation_sums = wants_modulation_sums(a);
    const bool affine_sums = wants_affine_sums(a);
    if (!valid(f) || !f.mean || !f.rstd || !a.dy || !a.dx ||
        ((modulation_sums || affine_sums) && !detail::aligned(a.workspace, 16))) {
        return cudaErrorInvalidValue;
    }
    const ChunkPlan plan = detail::plan_chunks(f.shape);
    const cudaError_t launched =
        detail::with_types(f.x_type, f.parameter_type, [&](auto x_tag, auto parameter_tag) {
            using T = decltype(x_tag);
            using P = decltype(parameter_tag);
            const detail::RowCover cover = cover_for<T, P>(f, a.dy, a.dx);
            const dim3 grid(static_cast<unsigned>(plan.count()));
            return detail::with_cover<16 / sizeof(T)>(cover, [&](auto vec, auto iterations) {
                constexpr int kVec = decltype(vec)::value;
                constexpr int kIterations = decltype(iterations)::value;
                if (modulation_sums || affine_sums) {
                    backward_kernel<T, P, kVec, kIterations, true>
                        <<<grid, cover.threads, 0, stream>>>(a, plan);
                } else {
                    backward_kernel<T, P, kVec, kIterations, false>
                        <<<grid, cover.threads, 0, stream>>>(a, plan);
                }
                return cudaGetLastError();
            });
        });
    if (launched != cudaSuccess) {
        return launched;
    }
    const auto* partials = static_cast<const float*>(a.workspace);
    if (modulation_sums) {
        const SegmentGradients segments[2] = {a.dshift, a.dscale};
        const cudaError_t summed = detail::sum_chunks_by_segment(
            partials, plan, kQuantities, f.shape.width, f.parameter_type, segments, 2, stream);
        if (summed != cudaSuccess) {
            return summed;
        }
    }
    if (affine_sums) {
        void* const totals[2] = {a.dweight, a.dbias};
        return detail::sum_chunks_total(partials, plan.count(), kQuantities, 2, f.shape.width,
                                        f.parameter_type, totals, 2, stream);
    }
    return cudaSuccess;
}

} // namespace tuneframe::core::cuda_kernels
