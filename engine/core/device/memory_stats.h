#pragma once

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include <cstdint>

namespace tuneframe::core {

// Memory as the `step` and `memory` events report it. On CUDA: the caching allocator's
// allocated, reserved and peak-allocated bytes and the device's total; on the CPU the process's
// resident set (allocated = reserved = current, peak = the high-water mark) and the machine's
// memory.
struct MemoryStats {
    std::int64_t allocated = 0;
    std::int64_t reserved = 0;
    std::int64_t peak = 0;
    std::int64_t total = 0;

    nlohmann::json to_json() const;
};

MemoryStats memory_stats(c10::Device device);
// Starts a new peak (CUDA: the allocator's peak; the CPU's high-water mark cannot be reset).
void reset_peak_memory(c10::Device device);
// Caps what the CUDA caching allocator may hold on `device` at `fraction` of its memory (as
// torch.cuda.set_per_process_memory_fraction), so a smaller card is emulated: past the cap an
// allocation fails as it would there. A Usage error for another device.
void limit_device_memory(c10::Device device, double fraction);

} // namespace tuneframe::core
