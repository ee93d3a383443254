#pragma once

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

namespace tuneframe::core {

// What the engine runs on, for the `hello` event: LibTorch and CUDA versions, the devices
// seen (every CUDA device with its name and memory, and the CPU), and the BLAS in use.
nlohmann::json runtime_info();

// Whether this build can use CUDA at all (a CUDA LibTorch and a visible device).
bool cuda_usable();

// Makes GPU `local_rank` this process's current device, before anything is allocated on it, so
// that NCCL, the caching allocator and every kernel of this worker use its own GPU (one worker
// per GPU, as torchrun, srun and `launch` start them). A rank without its GPU is a BadInput
// error naming the count.
c10::Device use_cuda_device(int local_rank);

// Hands the CUDA caching allocator's unused blocks back to the driver, so that after one model
// component is dropped the next one can use its memory (and nvidia-smi shows the truth). A no-op
// on CPU-only builds.
void release_cached_device_memory();

} // namespace tuneframe::core
