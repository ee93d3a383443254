#pragma once

#include <cstddef>
#include <string_view>

namespace tuneframe::core {

// Element types of safetensors files, named as the format names them.
enum class DType { Invalid, Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64 };

std::string_view dtype_name(DType dtype);
DType dtype_from_name(std::string_view name); // Invalid for names the engine cannot read
std::size_t dtype_size(DType dtype);
bool dtype_is_floating(DType dtype);

} // namespace tuneframe::core
