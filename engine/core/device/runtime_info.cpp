#include "engine/core/device/runtime_info.h"

#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/torch.h>
#include <torch/version.h>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAFunctions.h>
#endif

#include "engine/core/error.h"

#include <fstream>
#include <string>
#include <unistd.h>

namespace tuneframe::core {
namespace {

std::string cpu_model_name() {
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) {
                return line.substr(line.find_first_not_of(' ', colon + 1));
            }
        }
    }
    return "CPU";
}

nlohmann::json cpu_device() {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    return {{"type", "cpu"},
            {"index", 0},
            {"name", cpu_model_name()},
            {"threads", at::get_num_threads()},
            {"total_memory",
             pages > 0 && page_size > 0 ? static_cast<std::int64_t>(pages) * page_size : 0}};
}

nlohmann::json cuda_devices() {
    nlohmann::json devices = nlohmann::json::array();
#ifdef TUNEFRAME_TORCH_CUDA
    const auto count = static_cast<int>(torch::cuda::device_count());
    for (int index = 0; index < count; ++index) {
        const cudaDeviceProp* properties = at::cuda::getDeviceProperties(index);
        devices.push_back({{"type", "cuda"},
                           {"index", index},
                           {"name", properties->name},
                           {"total_memory", static_cast<std::int64_t>(properties->totalGlobalMem)},
                           {"capability", std::to_string(properties->major) + "." +
                                              std::to_string(properties->minor)}});
    }
#endif
    return devices;
}

#ifdef TUNEFRAME_TORCH_CUDA
std::string cuda_runtime_version() {
    const long version = at::detail::getCUDAHooks().versionCUDART();
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
#endif

} // namespace

bool cuda_usable() {
    return torch::cuda::is_available();
}

c10::Device use_cuda_device(int local_rank) {
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (local_rank < 0 || local_rank >= count) {
        throw core::Error(core::ErrorCode::BadInput,
                          "This worker's LOCAL_RANK is " + std::to_string(local_rank) + " but " +
                              std::to_string(count) + " GPU(s) are visible to it.",
                          "Start one worker per visible GPU (CUDA_VISIBLE_DEVICES), or as many "
                          "workers per node as --nproc-per-node / --ntasks-per-node says.");
    }
    const c10::Device device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
#ifdef TUNEFRAME_TORCH_CUDA
    c10::cuda::set_device(device.index());
#endif
    return device;
}

void release_cached_device_memory() {
#ifdef TUNEFRAME_TORCH_CUDA
    if (cuda_usable()) {
        c10::cuda::CUDACachingAllocator::emptyCache();
    }
#endif
}

nlohmann::json runtime_info() {
    nlohmann::json devices = cuda_usable() ? cuda_devices() : nlohmann::json::array();
    devices.push_back(cpu_device());
    nlohmann::json info = {{"libtorch", TORCH_VERSION}, {"devices", std::move(devices)}};
    info["cuda"] = nullptr;
#ifdef TUNEFRAME_TORCH_CUDA
    info["cuda"] = cuda_runtime_version();
#endif
    return info;
}

} // namespace tuneframe::core
