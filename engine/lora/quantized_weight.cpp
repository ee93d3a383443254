#include "engine/lora/quantized_weight.h"

#include "engine/core/error.h"
#include "engine/core/kernels/float8.h"

#include <torch/torch.h>

namespace tuneframe::lora {

using core::Error;
using core::ErrorCode;

namespace {

constexpr double kInt8Max = 127.0;

const char* kWhat = "fp8 base weights (lora.base_quantization \"fp8\")";

} // namespace

BaseQuantization parse_base_quantization(const std::string& name) {
    if (name == "none") {
        return BaseQuantization::None;
    }
    if (name == "int8") {
        return BaseQuantization::Int8;
    }
    if (name == "fp8") {
        core::float8_e4m3_dtype(kWhat); // throws where the linked LibTorch has no fp8
        return BaseQuantization::Float8;
    }
    throw Error(ErrorCode::BadInput, "Unknown base weight quantization '" + name + "'.",
                "Use none, int8 or fp8.");
}

const char* base_quantization_name(BaseQuantization quantization) {
    switch (quantization) {
    case BaseQuantization::None:
        return "none";
    case BaseQuantization::Int8:
        return "int8";
    case BaseQuantization::Float8:
        return "fp8";
    }
    return "?";
}

QuantizedWeight quantize_weight(const at::Tensor& weight, BaseQuantization quantization) {
    if (quantization == BaseQuantization::None || weight.dim() != 2) {
        throw Error(ErrorCode::Internal, "quantize_weight takes a 2-D weight and int8 or fp8");
    }
    torch::NoGradGuard no_grad;
    const at::Tensor full = weight.detach().to(torch::kFloat32);
    const double range = quantization == BaseQuantization::Int8 ? kInt8Max : core::kFloat8E4M3Max;
    at::Tensor absmax = full.abs().amax(1); // [out]
    at::Tensor scale = torch::where(absmax > 0, absmax / range, torch::ones_like(absmax));
    at::Tensor scaled = full / scale.unsqueeze(1);
    QuantizedWeight quantized;
    quantized.scale = scale;
    if (quantization == BaseQuantization::Int8) {
        quantized.values = scaled.round_().clamp_(-kInt8Max, kInt8Max).to(torch::kInt8);
    } else {
        // Rounding can carry the row maximum a hair past 448, which e4m3fn has no value for.
        quantized.values = scaled.clamp_(-core::kFloat8E4M3Max, core::kFloat8E4M3Max)
                               .to(core::float8_e4m3_dtype(kWhat));
    }
    return quantized;
}

at::Tensor dequantize_weight(const QuantizedWeight& weight, c10::ScalarType dtype) {
    return (weight.values.to(torch::kFloat32) * weight.scale.unsqueeze(1)).to(dtype);
}

} // namespace tuneframe::lora
