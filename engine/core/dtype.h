#pragma once

#include <cstddef>
#include <string_view>

namespace tuneframe::core {

// Element types of safetensors files, named as the format names them. The fp8 ones (ComfyUI's
// fp8_e4m3fn / fp8_e5m2 checkpoints) have no LibTorch type on 1.13: reading decodes them.
enum class DType { Invalid, Bool, U8, I8, I16, I32, I64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2 };

std::string_view dtype_name(DType dtype);
DType dtype_from_name(std::string_view name); // Invalid for names the engine cannot read
std::size_t dtype_size(DType dtype);
bool dtype_is_floating(DType dtype); // the fp8 types too
bool dtype_is_float8(DType dtype);

} // namespace tuneframe::core
