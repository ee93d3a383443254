#pragma once

#include <ATen/Tensor.h>

#include <string>

// Weight-only quantization of a frozen Linear weight [out, in]: one float32 scale per output
// channel (symmetric, absmax), values in int8 (scale = absmax / 127) or fp8 e4m3 (scale =
// absmax / 448). The layer computes x Q^T * scale, which equals x (diag(scale) Q)^T, so the
// weight is never rebuilt at full precision with its scales applied (torchao's int8
// weight-only linear does the same).
namespace tuneframe::lora {

enum class BaseQuantization {
    None,
    Int8,
    Float8, // e4m3fn; LibTorch 2.1 or newer (core/float8.h)
};

// The job's `lora.base_quantization` ("none", "int8", "fp8"); fp8 throws Unsupported when the
// linked LibTorch has no fp8 dtype, so a job fails before its model is loaded.
BaseQuantization parse_base_quantization(const std::string& name);
const char* base_quantization_name(BaseQuantization quantization);

struct QuantizedWeight {
    at::Tensor values; // [out, in], int8 or float8_e4m3fn, on the weight's device
    at::Tensor scale;  // [out], float32
};

// Quantizes in float32 on the weight's device; an all-zero row gets scale 1 (its values are 0).
QuantizedWeight quantize_weight(const at::Tensor& weight, BaseQuantization quantization);
// diag(scale) Q in `dtype`: the weight as the layer sees it, for tests and for merging.
at::Tensor dequantize_weight(const QuantizedWeight& weight, c10::ScalarType dtype);

} // namespace tuneframe::lora
