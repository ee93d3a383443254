#pragma once

#include <ATen/Tensor.h>

#include <cstdint>

namespace tuneframe::train {

// bitsandbytes' dynamic 8-bit data type (functional.create_dynamic_map with 7 exponent bits):
// 256 sorted float32 values, a decimal exponent in [-6, 0] times a fraction whose precision
// grows as the exponent does, so small and large magnitudes are both represented.
// Signed: [-1, 1] with one 0 (for first moments); unsigned: [0, 1] (for second moments).
// Built with the same float32 operations as the reference, so the values are identical.
at::Tensor dynamic_quantization_map(bool is_signed);

// Block-wise quantisation: every `block_size` consecutive elements (of the flattened tensor)
// share one absmax, and each element stores the index of the map value nearest to
// value / absmax. `keep_sign` is bitsandbytes' rule for first moments: a negative value never
// becomes 0, so a momentum's sign survives quantisation.
// Quantises `values` (float32) into `codes` (uint8, contiguous, values.numel() elements) and
// `absmax` ([ceil(numel / block_size)]), which may be views into larger buffers; a chunk of a
// larger tensor must start on a block boundary.
void quantize_blockwise(const at::Tensor& values, const at::Tensor& map, std::int64_t block_size,
                        bool keep_sign, const at::Tensor& codes, const at::Tensor& absmax);
// The float32 values `codes` (flat) and `absmax` stand for.
at::Tensor dequantize_blockwise(const at::Tensor& codes, const at::Tensor& absmax,
                                const at::Tensor& map, std::int64_t block_size);

} // namespace tuneframe::train
