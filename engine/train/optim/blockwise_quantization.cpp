#include "engine/train/optim/blockwise_quantization.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace tuneframe::train {
namespace {

constexpr int kExponentBits = 7;

// [numel] -> [blocks, block_size], zero-padded at the end.
at::Tensor as_blocks(const at::Tensor& flat, std::int64_t block_size) {
    const std::int64_t numel = flat.numel();
    const std::int64_t blocks = (numel + block_size - 1) / block_size;
    const std::int64_t padding = blocks * block_size - numel;
    const at::Tensor padded = padding ? at::constant_pad_nd(flat, {0, padding}, 0) : flat;
    return padded.view({blocks, block_size});
}

} // namespace

at::Tensor dynamic_quantization_map(bool is_signed) {
    // With 7 exponent bits and 8 bits in all, every remaining bit is fraction: exponent i has
    // 2^i (signed) or 2^(i+1) (unsigned) fraction values per sign.
    std::vector<float> values;
    const at::TensorOptions float32 = at::TensorOptions().dtype(at::kFloat);
    for (int i = 0; i < kExponentBits; ++i) {
        const std::int64_t fractions = (std::int64_t{1} << (is_signed ? i : i + 1)) + 1;
        const at::Tensor bounds = at::linspace(0.1, 1, fractions, float32);
        const at::Tensor means =
            (bounds.slice(0, 0, fractions - 1) + bounds.slice(0, 1, fractions)) / 2.0;
        const double scale = std::pow(10.0, -(kExponentBits - 1) + i);
        const at::Tensor positive = (means * scale).contiguous();
        const at::Tensor negative = (means * -scale).contiguous();
        values.insert(values.end(), positive.data_ptr<float>(),
                      positive.data_ptr<float>() + positive.numel());
        if (is_signed) {
            values.insert(values.end(), negative.data_ptr<float>(),
                          negative.data_ptr<float>() + negative.numel());
        }
    }
    values.push_back(0.0f);
    values.push_back(1.0f);
    at::Tensor map = at::tensor(values, float32);
    return std::get<0>(map.sort());
}

void quantize_blockwise(const at::Tensor& values, const at::Tensor& map, std::int64_t block_size,
                        bool keep_sign, const at::Tensor& codes, const at::Tensor& absmax) {
    const std::int64_t numel = values.numel();
    const at::Tensor blocks = as_blocks(values.reshape({-1}), block_size);
    const at::Tensor block_max = blocks.abs().amax(1);
    absmax.copy_(block_max);
    // An all-zero block stores zeros whatever its codes say; dividing by 1 keeps them finite.
    const at::Tensor divisor = at::where(block_max > 0, block_max, at::ones_like(block_max));
    const at::Tensor normalized = (blocks / divisor.unsqueeze(1)).reshape({-1}).slice(0, 0, numel);
    const std::int64_t last = map.numel() - 1;
    const at::Tensor upper = at::searchsorted(map, normalized).clamp_(1, last);
    const at::Tensor lower = upper - 1;
    const at::Tensor midpoint = (map.index_select(0, lower) + map.index_select(0, upper)) * 0.5;
    at::Tensor nearest = at::where(normalized > midpoint, upper, lower);
    if (keep_sign) {
        const at::Tensor lost_sign = (normalized < 0) & (map.index_select(0, nearest) >= 0);
        nearest = at::where(lost_sign, nearest - 1, nearest);
    }
    codes.view({-1}).copy_(nearest);
}

at::Tensor dequantize_blockwise(const at::Tensor& codes, const at::Tensor& absmax,
                                const at::Tensor& map, std::int64_t block_size) {
    const std::int64_t numel = codes.numel();
    const at::Tensor values = map.index_select(0, codes.reshape({-1}).to(at::kLong));
    const at::Tensor scaled = as_blocks(values, block_size) * absmax.unsqueeze(1);
    return scaled.reshape({-1}).slice(0, 0, numel);
}

} // namespace tuneframe::train
