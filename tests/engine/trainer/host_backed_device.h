#pragma once

// A second device for CPU-only machines, so a test can put a model somewhere other than the CPU
// and watch what the engine hands to its collectives. Its tensors live in host memory and every
// operator runs on the CPU (inputs copied there, results copied back), so results equal the
// CPU's; what differs is the device a tensor reports, exactly as with a GPU.
//
// It takes the XPU device type: LibTorch's Module::to moves parameters only between dense
// backends (CPU, CUDA, HIP, XPU, MPS; set_data refuses meta and PrivateUse1), and CPU builds of
// LibTorch register no XPU kernels, so ours are the only ones. Linking host_backed_device.cpp into
// a test executable registers it; nothing else in the process changes.
#include <c10/core/Device.h>

namespace tuneframe::test {

c10::Device host_backed_device();

} // namespace tuneframe::test
