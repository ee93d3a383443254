#pragma once

#include <nlohmann/json.hpp>

namespace tuneframe::core {

// What the engine runs on, for the `hello` event: LibTorch and CUDA versions, the devices
// seen (every CUDA device with its name and memory, and the CPU), and the BLAS in use.
nlohmann::json runtime_info();

// Whether this build can use CUDA at all (a CUDA LibTorch and a visible device).
bool cuda_usable();

// Hands the CUDA caching allocator's unused blocks back to the driver, so that after one model
// component is dropped the next one can use its memory (and nvidia-smi shows the truth). A no-op
// on CPU-only builds.
void release_cached_device_memory();

} // namespace tuneframe::core
