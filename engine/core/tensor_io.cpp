#include "engine/core/tensor_io.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_writer.h"

#include <torch/torch.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

namespace tuneframe::core {
namespace {

// An fp8 byte's value: sign, `exponent_bits` of exponent, the rest mantissa, IEEE-style
// subnormals. E4M3 is the "fn" variant (no infinities; only S.1111.111 is NaN), E5M2 keeps
// IEEE infinities and NaNs.
float float8_value(std::uint8_t byte, int exponent_bits, bool finite_only) {
    const int mantissa_bits = 7 - exponent_bits;
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const int exponent_max = (1 << exponent_bits) - 1;
    const int mantissa = byte & ((1 << mantissa_bits) - 1);
    const int exponent = (byte >> mantissa_bits) & exponent_max;
    const float sign = (byte & 0x80) ? -1.0f : 1.0f;
    if (finite_only && exponent == exponent_max && mantissa == (1 << mantissa_bits) - 1) {
        return std::numeric_limits<float>::quiet_NaN();
    }
    if (!finite_only && exponent == exponent_max) {
        return mantissa ? std::numeric_limits<float>::quiet_NaN()
                        : sign * std::numeric_limits<float>::infinity();
    }
    const float fraction = static_cast<float>(mantissa) / static_cast<float>(1 << mantissa_bits);
    if (exponent == 0) {
        return sign * std::ldexp(fraction, 1 - bias);
    }
    return sign * std::ldexp(1.0f + fraction, exponent - bias);
}

using Float8Table = std::array<float, 256>;

Float8Table float8_table(int exponent_bits, bool finite_only) {
    Float8Table table{};
    for (int byte = 0; byte < 256; ++byte) {
        table[static_cast<std::size_t>(byte)] =
            float8_value(static_cast<std::uint8_t>(byte), exponent_bits, finite_only);
    }
    return table;
}

at::Tensor decode_float8(const SafetensorsFile& file, const TensorInfo& tensor) {
    static const Float8Table e4m3 = float8_table(4, true);
    static const Float8Table e5m2 = float8_table(5, false);
    const Float8Table& table = tensor.dtype == DType::F8_E4M3 ? e4m3 : e5m2;
    at::Tensor result = torch::empty(tensor.shape, torch::TensorOptions().dtype(torch::kFloat32));
    const std::uint8_t* bytes = file.data(tensor);
    float* values = result.data_ptr<float>();
    for (std::uint64_t i = 0; i < tensor.nbytes(); ++i) {
        values[i] = table[bytes[i]];
    }
    return result;
}

} // namespace

c10::ScalarType to_scalar_type(DType dtype) {
    switch (dtype) {
    case DType::Bool:
        return torch::kBool;
    case DType::U8:
        return torch::kUInt8;
    case DType::I8:
        return torch::kInt8;
    case DType::I16:
        return torch::kInt16;
    case DType::I32:
        return torch::kInt32;
    case DType::I64:
        return torch::kInt64;
    case DType::F16:
        return torch::kFloat16;
    case DType::BF16:
        return torch::kBFloat16;
    case DType::F32:
        return torch::kFloat32;
    case DType::F64:
        return torch::kFloat64;
    case DType::F8_E4M3:
    case DType::F8_E5M2:
        return torch::kFloat32;
    case DType::Invalid:
        break;
    }
    throw Error(ErrorCode::Internal, "no LibTorch type for an invalid dtype");
}

DType from_scalar_type(c10::ScalarType type) {
    switch (type) {
    case torch::kBool:
        return DType::Bool;
    case torch::kUInt8:
        return DType::U8;
    case torch::kInt8:
        return DType::I8;
    case torch::kInt16:
        return DType::I16;
    case torch::kInt32:
        return DType::I32;
    case torch::kInt64:
        return DType::I64;
    case torch::kFloat16:
        return DType::F16;
    case torch::kBFloat16:
        return DType::BF16;
    case torch::kFloat32:
        return DType::F32;
    case torch::kFloat64:
        return DType::F64;
    default:
        return DType::Invalid;
    }
}

at::Tensor read_tensor(const SafetensorsFile& file, const TensorInfo& tensor) {
    if (dtype_is_float8(tensor.dtype)) {
        return decode_float8(file, tensor);
    }
    at::Tensor result =
        torch::empty(tensor.shape, torch::TensorOptions().dtype(to_scalar_type(tensor.dtype)));
    if (tensor.nbytes() > 0) {
        std::memcpy(result.data_ptr(), file.data(tensor), tensor.nbytes());
    }
    return result;
}

at::Tensor view_tensor(const SafetensorsFile& file, const TensorInfo& tensor) {
    const std::uint8_t* data = file.data(tensor);
    if (tensor.nbytes() == 0 || dtype_is_float8(tensor.dtype) ||
        reinterpret_cast<std::uintptr_t>(data) % dtype_size(tensor.dtype)) {
        return read_tensor(file, tensor);
    }
    auto mapping = file.mapping();
    return torch::from_blob(
        const_cast<std::uint8_t*>(data), tensor.shape,
        [mapping](void*) mutable { mapping.reset(); },
        torch::TensorOptions().dtype(to_scalar_type(tensor.dtype)));
}

std::map<std::string, at::Tensor> read_tensors(const std::filesystem::path& path) {
    SafetensorsFile file(path);
    std::map<std::string, at::Tensor> tensors;
    for (const TensorInfo& tensor : file.tensors()) {
        tensors.emplace(tensor.name, read_tensor(file, tensor));
    }
    return tensors;
}

void write_tensors(const std::filesystem::path& path, const NamedTensors& tensors,
                   const std::map<std::string, std::string>& metadata) {
    std::vector<at::Tensor> host;
    std::vector<TensorToWrite> records;
    host.reserve(tensors.size());
    records.reserve(tensors.size());
    for (const auto& [name, tensor] : tensors) {
        DType dtype = from_scalar_type(tensor.scalar_type());
        if (dtype == DType::Invalid) {
            throw Error(ErrorCode::Unsupported,
                        "tensor '" + name + "' has type " +
                            std::string(c10::toString(tensor.scalar_type())) +
                            ", which safetensors cannot store");
        }
        host.push_back(tensor.detach().to(torch::kCPU).contiguous());
        records.push_back({name, dtype, host.back().sizes().vec(), host.back().data_ptr()});
    }
    write_safetensors(path, records, metadata);
}

} // namespace tuneframe::core
