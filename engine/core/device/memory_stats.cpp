#include "engine/core/device/memory_stats.h"

#ifdef TUNEFRAME_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>
#endif

#include "engine/core/error.h"

#include <fstream>
#include <string>
#include <unistd.h>

namespace tuneframe::core {
namespace {

// VmRSS and VmHWM from /proc/self/status, in bytes.
std::pair<std::int64_t, std::int64_t> resident_memory() {
    std::ifstream status("/proc/self/status");
    std::int64_t current = 0;
    std::int64_t peak = 0;
    for (std::string line; std::getline(status, line);) {
        auto kilobytes = [&](const char* key) -> std::int64_t {
            return std::stoll(line.substr(std::char_traits<char>::length(key))) * 1024;
        };
        if (line.rfind("VmRSS:", 0) == 0) {
            current = kilobytes("VmRSS:");
        } else if (line.rfind("VmHWM:", 0) == 0) {
            peak = kilobytes("VmHWM:");
        }
    }
    return {current, peak};
}

} // namespace

nlohmann::json MemoryStats::to_json() const {
    return {{"allocated", allocated}, {"reserved", reserved}, {"peak", peak}, {"total", total}};
}

MemoryStats memory_stats(c10::Device device) {
    MemoryStats stats;
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda()) {
        const int index = device.has_index() ? device.index() : 0;
        const auto device_stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
        constexpr std::size_t kAggregate = 0; // StatType::AGGREGATE
        stats.allocated = device_stats.allocated_bytes[kAggregate].current;
        stats.reserved = device_stats.reserved_bytes[kAggregate].current;
        stats.peak = device_stats.allocated_bytes[kAggregate].peak;
        std::size_t free = 0;
        std::size_t total = 0;
        // cudaMemGetInfo answers for the current device, which need not be `device`.
        const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
        if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
            stats.total = static_cast<std::int64_t>(total);
        }
        return stats;
    }
#endif
    (void)device;
    const auto [current, peak] = resident_memory();
    stats.allocated = current;
    stats.reserved = current;
    stats.peak = peak;
    stats.total = static_cast<std::int64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGE_SIZE);
    return stats;
}

void reset_peak_memory(c10::Device device) {
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda()) {
        c10::cuda::CUDACachingAllocator::resetPeakStats(device.has_index() ? device.index() : 0);
    }
#endif
    (void)device;
}

void limit_device_memory(c10::Device device, double fraction) {
    if (!(fraction > 0 && fraction <= 1)) {
        throw Error(ErrorCode::Usage,
                    "A device memory fraction must be above 0 and at most 1, not " +
                        std::to_string(fraction) + ".");
    }
#ifdef TUNEFRAME_TORCH_CUDA
    if (device.is_cuda()) {
        c10::cuda::CUDACachingAllocator::setMemoryFraction(fraction,
                                                           device.has_index() ? device.index() : 0);
        return;
    }
#endif
    throw Error(ErrorCode::Usage,
                "A memory fraction caps the CUDA allocator, and the device is " + device.str() +
                    ".",
                "Leave --memory-fraction out, or run on a GPU (--device cuda).");
}

} // namespace tuneframe::core
