// q/k LayerNorm over the head dim, read in the [B, T, H, d] layout the projection writes (no
// transposed copy), fused with rotary on the video rows. One warp per row of d = 64, 128 or 256
// values: each lane holds d / 32 consecutive values, so a rotary pair never leaves its lane and
// the row's sums are two shuffles. A block takes one token (forward) or a chunk of tokens
// (backward), its warps the heads in turn, so a token's rotary table is read once and no row
// index is divided out. Backward: each warp forms dx of its rows, and the lanes keep their
// columns' sums for dweight and dbias, reduced across the block's warps once and across chunks by
// sum_chunks_total.
#include "engine/core/kernels/cuda/kernel_support.cuh"

namespace tuneframe::core::cuda_kernels {
namespace {

using detail::ChunkPlan;
using detail::load;
using detail::load_or;
using detail::store;
using detail::warp_sum;

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;

// Token `token` of the [B, T] tokens: its sample and its row within the sample.
struct TokenIndex {
    std::int64_t sample;
    std::int64_t row;
};

__device__ __forceinline__ TokenIndex token_index(std::int64_t token, std::int64_t rows) {
    const std::int64_t sample = token / rows;
    return {sample, token - sample * rows};
}

__device__ __forceinline__ std::int64_t offset(const TokenIndex& at, std::int64_t head,
                                               const std::int64_t (&strides)[3]) {
    return at.sample * strides[0] + at.row * strides[1] + head * strides[2];
}

// One token per block; its warps take the heads in turn (one division per block, not per row).
template <typename T, typename P, int E>
__global__ void __launch_bounds__(kThreads) forward_kernel(const HeadNormRotaryForward a) {
    constexpr int kWidth = E * 32;
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const std::int64_t token = blockIdx.x;
    const TokenIndex at = token_index(token, a.rows);
    const bool rotate = a.cos && at.row >= a.text_rows;
    float w[E], b[E], c[E], s[E];
    load_or<P, E>(a.weight ? static_cast<const P*>(a.weight) + lane * E : nullptr, 1.f, w);
    load_or<P, E>(a.bias ? static_cast<const P*>(a.bias) + lane * E : nullptr, 0.f, b);
    if (rotate) {
        const std::int64_t table = (at.row - a.text_rows) * kWidth + lane * E;
        load<float, E>(a.cos + table, c);
        load<float, E>(a.sin + table, s);
    }
    for (std::int64_t head = threadIdx.x >> 5; head < a.heads; head += kWarps) {
        float v[E];
        load<T, E>(static_cast<const T*>(a.x) + offset(at, head, a.x_strides) + lane * E, v);
        float sum = 0.f;
#pragma unroll
        for (int i = 0; i < E; ++i) {
            sum += v[i];
        }
        const float mean = warp_sum(sum) / kWidth;
        float squares = 0.f;
#pragma unroll
        for (int i = 0; i < E; ++i) {
            v[i] -= mean;
            squares += v[i] * v[i];
        }
        const float rstd = rsqrtf(warp_sum(squares) / kWidth + a.eps);
#pragma unroll
        for (int i = 0; i < E; ++i) {
            v[i] = v[i] * rstd * w[i] + b[i];
        }
        if (rotate) {
#pragma unroll
            for (int i = 0; i < E; i += 2) {
                const float z0 = v[i];
                const float z1 = v[i + 1];
                v[i] = z0 * c[i] - z1 * s[i];
                v[i + 1] = z1 * c[i + 1] + z0 * s[i + 1];
            }
        }
        const std::int64_t row = token * a.heads + head;
        store<T, E>(static_cast<T*>(a.y) + row * kWidth + lane * E, v);
        if (lane == 0 && a.mean) {
            a.mean[row] = mean;
            a.rstd[row] = rstd;
        }
    }
}

template <typename T, typename P, int E, bool SUMS>
__global__ void __launch_bounds__(kThreads)
    backward_kernel(const HeadNormRotaryBackward a, const ChunkPlan plan) {
    constexpr int kWidth = E * 32;
    const HeadNormRotaryForward& f = a.forward;
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const int warp = static_cast<int>(threadIdx.x >> 5);
    const ChunkPlan::Chunk chunk = plan.chunk(blockIdx.x);
    float w[E];
    load_or<P, E>(f.weight ? static_cast<const P*>(f.weight) + lane * E : nullptr, 1.f, w);
    float sum_dzn[E], sum_dz[E];
#pragma unroll
    for (int i = 0; i < E; ++i) {
        sum_dzn[i] = sum_dz[i] = 0.f;
    }
    for (std::int64_t token = chunk.begin; token < chunk.end; ++token) {
        const TokenIndex at = token_index(token, f.rows);
        const bool rotate = f.cos && at.row >= f.text_rows;
        float c[E], s[E];
        if (rotate) {
            const std::int64_t table = (at.row - f.text_rows) * kWidth + lane * E;
            load<float, E>(f.cos + table, c);
            load<float, E>(f.sin + table, s);
        }
        for (std::int64_t head = warp; head < f.heads; head += kWarps) {
            const std::int64_t row = token * f.heads + head;
            const float mean = f.mean[row];
            const float rstd = f.rstd[row];
            float n[E], dz[E];
            load<T, E>(static_cast<const T*>(f.x) + offset(at, head, f.x_strides) + lane * E, n);
            load<T, E>(static_cast<const T*>(a.dy) + offset(at, head, a.dy_strides) + lane * E, dz);
            if (rotate) {
#pragma unroll
                for (int i = 0; i < E; i += 2) {
                    const float g0 = dz[i];
                    const float g1 = dz[i + 1];
                    dz[i] = g0 * c[i] + g1 * s[i + 1];
                    dz[i + 1] = g1 * c[i + 1] - g0 * s[i];
                }
            }
            float row_dn = 0.f, row_dnn = 0.f;
#pragma unroll
            for (int i = 0; i < E; ++i) {
                n[i] = (n[i] - mean) * rstd;
                if constexpr (SUMS) {
                    sum_dzn[i] += dz[i] * n[i];
                    sum_dz[i] += dz[i];
                }
                dz[i] *= w[i]; // now d(normalised)
                row_dn += dz[i];
                row_dnn += dz[i] * n[i];
            }
            const float mean_dn = warp_sum(row_dn) / kWidth;
            const float mean_dnn = warp_sum(row_dnn) / kWidth;
#pragma unroll
            for (int i = 0; i < E; ++i) {
                dz[i] = rstd * (dz[i] - mean_dn - n[i] * mean_dnn);
            }
            store<T, E>(static_cast<T*>(a.dx) + row * kWidth + lane * E, dz);
        }
    }
    if constexpr (SUMS) {
        __shared__ float warp_sums[kWarps][2][kWidth];
#pragma unroll
        for (int i = 0; i < E; ++i) {
            warp_sums[warp][0][lane * E + i] = sum_dzn[i];
            warp_sums[warp][1][lane * E + i] = sum_dz[i];
        }
        __syncthreads();
        float* partials =
            static_cast<float*>(a.workspace) + static_cast<std::int64_t>(blockIdx.x) * 2 * kWidth;
        for (int index = static_cast<int>(threadIdx.x); index < 2 * kWidth; index += kThreads) {
            float sum = 0.f;
#pragma unroll
            for (int k = 0; k < kWarps; ++k) {
                sum += warp_sums[k][index / kWidth][index % kWidth];
            }
            partials[index] = sum;
        }
    }
}

bool valid(const HeadNormRotaryForward& f) {
    return f.batch > 0 && f.rows > 0 && f.heads > 0 && f.batch * f.rows <= 0x7fffffff &&
           f.text_rows >= 0 && f.text_rows <= f.rows &&
           (f.head_dim == 64 || f.head_dim == 128 || f.head_dim == 256) && f.x &&
           (!f.cos == !f.sin);
}

// Every row of `pointer` through `strides` starts where a lane's vector of `elements` may be
// read: on elements * element_bytes, or 16, bytes.
bool rows_aligned(const void* pointer, const std::int64_t (&strides)[3], std::size_t element_bytes,
                  int elements) {
    const std::size_t bytes = element_bytes * elements > 16 ? 16 : element_bytes * elements;
    const auto step = static_cast<std::int64_t>(bytes / element_bytes);
    return detail::aligned(pointer, bytes) && strides[0] % step == 0 && strides[1] % step == 0 &&
           strides[2] % step == 0;
}

template <typename T, typename P>
bool aligned_for(const HeadNormRotaryForward& f, int elements) {
    const std::size_t parameter_bytes = sizeof(P) * elements > 16 ? 16 : sizeof(P) * elements;
    const std::size_t table_bytes = sizeof(float) * elements > 16 ? 16 : sizeof(float) * elements;
    return rows_aligned(f.x, f.x_strides, sizeof(T), elements) &&
           detail::aligned(f.weight, parameter_bytes) && detail::aligned(f.bias, parameter_bytes) &&
           detail::aligned(f.cos, table_bytes) && detail::aligned(f.sin, table_bytes);
}

template <typename Launch>
cudaError_t with_elements(std::int64_t head_dim, Launch&& launch) {
    switch (head_dim) {
    case 64:
        return launch(std::integral_constant<int, 2>{});
    case 128:
        return launch(std::integral_constant<int, 4>{});
    case 256:
        return launch(std::integral_constant<int, 8>{});
    default:
        return cudaErrorInvalidValue;
    }
}

// Chunks of tokens (each of `heads` rows).
ChunkPlan plan_for(const HeadNormRotaryForward& f) {
    TokenRows tokens;
    tokens.batch = 1;
    tokens.rows = f.batch * f.rows;
    tokens.width = f.head_dim;
    return detail::plan_chunks(tokens);
}

} // namespace

bool head_norm_rotary_supported(const HeadNormRotaryForward& a) {
    return valid(a) && detail::with_types(a.x_type, a.parameter_type,
                                          [](auto, auto) { return cudaSuccess; }) == cudaSuccess;
}

cudaError_t head_norm_rotary_forward(const HeadNormRotaryForward& a, cudaStream_t stream) {
    if (!valid(a) || !a.y || !detail::aligned(a.y, 16)) {
        return cudaErrorInvalidValue;
    }
    return detail::with_types(a.x_type, a.parameter_type, [&](auto x_tag, auto parameter_tag) {
        using T = decltype(x_tag);
        using P = decltype(parameter_tag);
        return with_elements(a.head_dim, [&](auto elements) {
            constexpr int kElements = decltype(elements)::value;
            if (!aligned_for<T, P>(a, kElements)) {
                return cudaErrorInvalidValue;
            }
            const dim3 grid(static_cast<unsigned>(a.batch * a.rows));
            forward_kernel<T, P, kElements><<<grid, kThreads, 0, stream>>>(a);
            return cudaGetLastError();
        });
    });
}

std::size_t head_norm_rotary_workspace_bytes(const HeadNormRotaryBackward& a) {
    if (!valid(a.forward) || (!a.dweight && !a.dbias)) {
        return 0;
    }
    return static_cast<std::size_t>(plan_for(a.forward).count()) * 2 *
           static_cast<std::size_t>(a.forward.head_dim) * sizeof(float);
}

cudaError_t head_norm_rotary_backward(const HeadNormRotaryBackward& a, cudaStream_t stream) {
    const HeadNormRotaryForward& f = a.forward;
    const bool sums = a.dweight || a.dbias;
    if (!valid(f) || !f.mean || !f.rstd || !a.dy || !a.dx || !detail::aligned(a.dx, 16) ||
        (sums && !detail::aligned(a.workspace, 16))) {
        return cudaErrorInvalidValue;
    }
    const ChunkPlan plan = plan_for(f);
    const cudaError_t launched =
        detail::with_types(f.x_type, f.parameter_type, [&](auto x_tag, auto parameter_tag) {
            using T = decltype(x_tag);
            using P = decltype(parameter_tag);
            return with_elements(f.head_dim, [&](auto elements) {
                constexpr int kElements = decltype(elements)::value;
                if (!aligned_for<T, P>(f, kElements) ||
                    !rows_aligned(a.dy, a.dy_strides, sizeof(T), kElements)) {
                    return cudaErrorInvalidValue;
                }
                const dim3 grid(static_cast<unsigned>(plan.count()));
                if (sums) {
                    backward_kernel<T, P, kElements, true><<<grid, kThreads, 0, stream>>>(a, plan);
                } else {
                    backward_kernel<T, P, kElements, false><<<grid, kThreads, 0, stream>>>(a, plan);
                }
                return cudaGetLastError();
            });
        });
    if (launched != cudaSuccess || !sums) {
        return launched;
    }
    void* const totals[2] = {a.dweight, a.dbias};
    return detail::sum_chunks_total(static_cast<const float*>(a.workspace), plan.count(), 2, 0,
                                    f.head_dim, f.parameter_type, totals, 2, stream);
}

} // namespace tuneframe::core::cuda_kernels
