#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tuneframe::dist {

// CUDA numbers GPUs fastest first unless told otherwise; NVML and nvidia-smi number them by PCI
// bus. The engine asks for bus order before CUDA starts, so cuda:N, `launch --gpus N` and the
// studio's GPU list (NVML) all mean the same GPU.
void use_pci_bus_device_order();

// The CUDA_VISIBLE_DEVICES of `launch --gpus` workers. `gpus` are CUDA indices as this process
// sees them (or GPU UUIDs, passed on as they are); when this process itself was given
// CUDA_VISIBLE_DEVICES (`inherited`), index N is its N-th entry, so "--gpus 0,1" under
// CUDA_VISIBLE_DEVICES=2,3 trains on GPUs 2 and 3. An index past the inherited list is a
// BadInput error naming both.
std::string worker_visible_devices(const std::vector<std::string>& gpus,
                                   const std::optional<std::string>& inherited);

} // namespace tuneframe::dist
