#pragma once

// What the block kernels share: element conversions, vector access, block-wide sums and the
// plan that cuts a [B, T, D] token buffer into chunks of rows whose per-column partial sums the
// backward kernels write and sum_chunks_* then reduce, in a fixed order.

#include "engine/core/kernels/cuda/block_kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace tuneframe::core::cuda_kernels::detail {

template <typename T>
__device__ __forceinline__ float to_float(T value);
template <>
__device__ __forceinline__ float to_float<float>(float value) {
    return value;
}
template <>
__device__ __forceinline__ float to_float<__nv_bfloat16>(__nv_bfloat16 value) {
    return __bfloat162float(value);
}
template <>
__device__ __forceinline__ float to_float<__half>(__half value) {
    return __half2float(value);
}

template <typename T>
__device__ __forceinline__ T from_float(float value);
template <>
__device__ __forceinline__ float from_float<float>(float value) {
    return value;
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float value) {
    return __float2bfloat16_rn(value);
}
template <>
__device__ __forceinline__ __half from_float<__half>(float value) {
    return __float2half_rn(value);
}

// N consecutive elements read or written as one access (16 bytes at most per instruction).
template <typename T, int N>
struct alignas(sizeof(T) * N > 16 ? 16 : sizeof(T) * N) Pack {
    T v[N];
};

template <typename T, int N>
__device__ __forceinline__ void load(const T* source, float (&out)[N]) {
    const Pack<T, N> pack = *reinterpret_cast<const Pack<T, N>*>(source);
#pragma unroll
    for (int i = 0; i < N; ++i) {
        out[i] = to_float(pack.v[i]);
    }
}

template <typename T, int N>
__device__ __forceinline__ void store(T* target, const float (&in)[N]) {
    Pack<T, N> pack;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        pack.v[i] = from_float<T>(in[i]);
    }
    *reinterpret_cast<Pack<T, N>*>(target) = pack;
}

// N elements of a parameter vector, or `fallback` for each when there is none.
template <typename P, int N>
__device__ __forceinline__ void load_or(const P* source, float fallback, float (&out)[N]) {
    if (source) {
        load<P, N>(source, out);
        return;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) {
        out[i] = fallback;
    }
}

__device__ __forceinline__ float warp_sum(float value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_xor_sync(0xffffffffu, value, offset);
    }
    return value;
}

// The sums of a and b over the block (blockDim.x a multiple of 32), handed to every thread.
// `scratch` holds 32 entries; a call may follow another on the same scratch at once.
__device__ __forceinline__ float2 block_sum2(float a, float b, float2* scratch) {
    a = warp_sum(a);
    b = warp_sum(b);
    const unsigned lane = threadIdx.x & 31u;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned warps = blockDim.x >> 5;
    __syncthreads(); // the previous call's readers are done with scratch
    if (lane == 0) {
        scratch[warp] = make_float2(a, b);
    }
    __syncthreads();
    const float2 mine = lane < warps ? scratch[lane] : make_float2(0.f, 0.f);
    return make_float2(warp_sum(mine.x), warp_sum(mine.y));
}

__device__ __forceinline__ float block_sum(float value, float2* scratch) {
    return block_sum2(value, 0.f, scratch).x;
}

// Chunks of at most `chunk_rows` rows that never straddle a segment: per sample, the text
// chunks, then the video chunks. Chunk c's column sums land in row c of the partials.
struct ChunkPlan {
    std::int64_t rows = 0; // T
    std::int64_t text_rows = 0;
    std::int64_t chunk_rows = 1;
    std::int64_t text_chunks = 0;
    std::int64_t video_chunks = 0;
    std::int64_t batch = 0;

    __host__ __device__ std::int64_t per_sample() const { return text_chunks + video_chunks; }
    __host__ __device__ std::int64_t count() const { return batch * per_sample(); }

    struct Chunk {
        std::int64_t sample;
        bool text;
        std::int64_t begin; // global row index, inclusive
        std::int64_t end;
    };
    __host__ __device__ Chunk chunk(std::int64_t index) const {
        const std::int64_t sample = index / per_sample();
        const std::int64_t local = index % per_sample();
        const std::int64_t base = sample * rows;
        if (local < text_chunks) {
            const std::int64_t begin = base + local * chunk_rows;
            const std::int64_t end =
                begin + chunk_rows < base + text_rows ? begin + chunk_rows : base + text_rows;
            return {sample, true, begin, end};
        }
        const std::int64_t begin = base + text_rows + (local - text_chunks) * chunk_rows;
        const std::int64_t end =
            begin + chunk_rows < base + rows ? begin + chunk_rows : base + rows;
        return {sample, false, begin, end};
    }
    // Chunks [first, first + n) of one sample's segment.
    __host__ __device__ std::int64_t first_of(std::int64_t sample, bool text) const {
        return sample * per_sample() + (text ? 0 : text_chunks);
    }
    __host__ __device__ std::int64_t count_of(bool text) const {
        return text ? text_chunks : video_chunks;
    }
};

// Enough chunks to keep every SM busy with a few blocks, few enough that the partials stay
// small: chunks of at least 8 rows, at most about 16 per SM.
ChunkPlan plan_chunks(const TokenRows& shape);

std::size_t element_size(ElementType type);

// out[i] (D values of `type`; null: skipped) = the sum over every chunk c of
// partials[c][first + i][:]. partials: [chunks][quantities][width] float32.
cudaError_t sum_chunks_total(const float* partials, std::int64_t chunks, int quantities, int first,
                             std::int64_t width, ElementType type, void* const* out, int count,
                             cudaStream_t stream);

// out[q].video / .text ([B, D] of `type`, contiguous; null: skipped) = the sum of quantity q's
// partials over the chunks of that sample's segment. A segment without rows gets zeros.
cudaError_t sum_chunks_by_segment(const float* partials, const ChunkPlan& plan, int quantities,
                                  std::int64_t width, ElementType type, const SegmentGradients* out,
                                  int count, cudaStream_t stream);

inline std::int64_t divide_up(std::int64_t a, std::int64_t b) {
    return (a + b - 1) / b;
}

inline bool aligned(const void* pointer, std::size_t bytes) {
    return reinterpret_cast<std::uintptr_t>(pointer) % bytes == 0;
}

// Runs f(T{}, P{}) for the element type T and the parameter type P the kernels are built for:
// P is T or float.
template <typename Function>
cudaError_t with_types(ElementType x, ElementType parameter, Function&& f) {
    const bool wide = parameter == ElementType::Float32;
    switch (x) {
    case ElementType::Float32:
        return wide ? f(float{}, float{}) : cudaErrorInvalidValue;
    case ElementType::BFloat16:
        if (wide) {
            return f(__nv_bfloat16{}, float{});
        }
        return parameter == ElementType::BFloat16 ? f(__nv_bfloat16{}, __nv_bfloat16{})
                                                  : cudaErrorInvalidValue;
    case ElementType::Float16:
        if (wide) {
            return f(__half{}, float{});
        }
        return parameter == ElementType::Float16 ? f(__half{}, __half{}) : cudaErrorInvalidValue;
    }
    return cudaErrorInvalidValue;
}

// How a row kernel covers D columns: each thread holds `iterations` vectors of VEC elements
// (VEC = 16 bytes of T when every access is aligned, else 1), `threads` a multiple of 32. The
// vector path takes at most 2 iterations and the scalar one 8, beyond which a backward thread's
// registers would spill: rows up to 1024 vectors (8192 bf16, 4096 float32 values) or 4096
// scalars.
struct RowCover {
    bool vector = false;
    int iterations = 0; // 0: too wide for the row kernels
    int threads = 0;
};
constexpr int kMaxRowThreads = 512;
inline RowCover cover_row(std::int64_t width, int vector_elements, bool aligned_access) {
    RowCover cover;
    cover.vector = aligned_access && width % vector_elements == 0;
    const std::int64_t vectors = cover.vector ? width / vector_elements : width;
    const int most = cover.vector ? 2 : 8;
    for (int iterations = 1; iterations <= most; iterations *= 2) {
        const std::int64_t threads = divide_up(vectors, iterations);
        if (threads <= kMaxRowThreads) {
            cover.iterations = iterations;
            cover.threads = static_cast<int>(divide_up(threads, 32) * 32);
            return cover;
        }
    }
    return cover;
}

// Whether the row kernels take a row of `width` elements of `x` with `parameter` weights: a
// pair of types they are built for, and a row the scalar path (which any alignment may need)
// covers.
inline bool row_kernels_cover(ElementType x, ElementType parameter, std::int64_t width) {
    const cudaError_t fits = with_types(x, parameter, [&](auto x_tag, auto) {
        using T = decltype(x_tag);
        return cover_row(width, 16 / sizeof(T), false).iterations > 0 ? cudaSuccess
                                                                      : cudaErrorInvalidValue;
    });
    return fits == cudaSuccess;
}

// Calls launch.template operator()<VEC, ITERS>() for a cover's vector width and iterations.
template <int VectorElements, typename Launch>
cudaError_t with_cover(const RowCover& cover, Launch&& launch) {
    if (cover.vector) {
        switch (cover.iterations) {
        case 1:
            return launch(std::integral_constant<int, VectorElements>{},
                          std::integral_constant<int, 1>{});
        case 2:
            return launch(std::integral_constant<int, VectorElements>{},
                          std::integral_constant<int, 2>{});
        default:
            return cudaErrorInvalidValue;
        }
    }
    switch (cover.iterations) {
    case 1:
        return launch(std::integral_constant<int, 1>{}, std::integral_constant<int, 1>{});
    case 2:
        return launch(std::integral_constant<int, 1>{}, std::integral_constant<int, 2>{});
    case 4:
        return launch(std::integral_constant<int, 1>{}, std::integral_constant<int, 4>{});
    case 8:
        return launch(std::integral_constant<int, 1>{}, std::integral_constant<int, 8>{});
    default:
        return cudaErrorInvalidValue;
    }
}

} // namespace tuneframe::core::cuda_kernels::detail
