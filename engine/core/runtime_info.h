#pragma once

#include <nlohmann/json.hpp>

namespace tuneframe::core {

// What the engine runs on, for the `hello` event: LibTorch and CUDA versions, the devices
// seen (every CUDA device with its name and memory, and the CPU), and the BLAS in use.
nlohmann::json runtime_info();

// Whether this build can use CUDA at all (a CUDA LibTorch and a visible device).
bool cuda_usable();

} // namespace tuneframe::core
