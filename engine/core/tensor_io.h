#pragma once

#include "engine/core/dtype.h"
#include "engine/core/safetensors/safetensors_file.h"

#include <ATen/Tensor.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::core {

// The type a tensor of `dtype` reads as: float32 for the fp8 types, which LibTorch 1.13 cannot
// hold and read_tensor() decodes.
c10::ScalarType to_scalar_type(DType dtype);
DType from_scalar_type(c10::ScalarType type); // Invalid for types safetensors cannot hold

// A tensor that owns a copy of the bytes: safe to modify, independent of the file. fp8 tensors
// are decoded to float32 (exactly: every fp8 value is a float32 value).
at::Tensor read_tensor(const SafetensorsFile& file, const TensorInfo& tensor);
// A zero-copy tensor over the memory map, read-only by contract (the pages are mapped
// read-only, so writing to it faults); it keeps the mapping alive. Misaligned data is copied,
// and so is fp8 data (decoded, as read_tensor does).
at::Tensor view_tensor(const SafetensorsFile& file, const TensorInfo& tensor);

// Every tensor of a file, copied. For inputs and small files; models load through their own
// streaming loaders.
std::map<std::string, at::Tensor> read_tensors(const std::filesystem::path& path);

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// Writes CPU copies of `tensors` atomically; non-contiguous and device tensors are fine.
void write_tensors(const std::filesystem::path& path, const NamedTensors& tensors,
                   const std::map<std::string, std::string>& metadata = {});

} // namespace tuneframe::core
