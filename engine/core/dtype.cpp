#include "engine/core/dtype.h"

#include <array>
#include <utility>

namespace tuneframe::core {
namespace {

struct DTypeEntry {
    DType dtype;
    std::string_view name;
    std::size_t size;
};

constexpr std::array<DTypeEntry, 12> kDTypes{{
    {DType::Bool, "BOOL", 1},
    {DType::U8, "U8", 1},
    {DType::I8, "I8", 1},
    {DType::I16, "I16", 2},
    {DType::I32, "I32", 4},
    {DType::I64, "I64", 8},
    {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2},
    {DType::F32, "F32", 4},
    {DType::F64, "F64", 8},
    {DType::F8_E4M3, "F8_E4M3", 1},
    {DType::F8_E5M2, "F8_E5M2", 1},
}};

const DTypeEntry* find(DType dtype) {
    for (const auto& entry : kDTypes) {
        if (entry.dtype == dtype) {
            return &entry;
        }
    }
    return nullptr;
}

} // namespace

std::string_view dtype_name(DType dtype) {
    const DTypeEntry* entry = find(dtype);
    return entry ? entry->name : "INVALID";
}

DType dtype_from_name(std::string_view name) {
    for (const auto& entry : kDTypes) {
        if (entry.name == name) {
            return entry.dtype;
        }
    }
    return DType::Invalid;
}

std::size_t dtype_size(DType dtype) {
    const DTypeEntry* entry = find(dtype);
    return entry ? entry->size : 0;
}

bool dtype_is_floating(DType dtype) {
    return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
           dtype == DType::F64 || dtype_is_float8(dtype);
}

bool dtype_is_float8(DType dtype) {
    return dtype == DType::F8_E4M3 || dtype == DType::F8_E5M2;
}

} // namespace tuneframe::core
