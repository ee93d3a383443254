#pragma once

#include "engine/core/dtype.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace tuneframe::core {

struct TensorToWrite {
    std::string name;
    DType dtype = DType::Invalid;
    std::vector<std::int64_t> shape;
    const void* data = nullptr; // dtype x shape bytes, little-endian, contiguous
};

// Writes a .safetensors file atomically (temporary file, fsync, rename). Tensors are stored in
// name order so the same tensors always give the same bytes. Throws Error on duplicate or
// reserved names and on I/O failure (a full disk leaves the previous file untouched).
void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

} // namespace tuneframe::core
