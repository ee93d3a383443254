#include "engine/core/tensor_io.h"

#include "engine/core/error.h"
#include "engine/core/safetensors/safetensors_writer.h"

#include <torch/torch.h>

#include <cstring>

namespace tuneframe::core {

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
    at::Tensor result =
        torch::empty(tensor.shape, torch::TensorOptions().dtype(to_scalar_type(tensor.dtype)));
    if (tensor.nbytes() > 0) {
        std::memcpy(result.data_ptr(), file.data(tensor), tensor.nbytes());
    }
    return result;
}

at::Tensor view_tensor(const SafetensorsFile& file, const TensorInfo& tensor) {
    const std::uint8_t* data = file.data(tensor);
    if (tensor.nbytes() == 0 || reinterpret_cast<std::uintptr_t>(data) % dtype_size(tensor.dtype)) {
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
