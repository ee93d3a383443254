#pragma once

#include "engine/diffusion/cogvideox_dpm_scheduler.h"

#include <ATen/Tensor.h>
#include <ATen/core/Generator.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include <cstdint>

namespace tuneframe::diffusion {

// One seeded CPU generator whose draws are made exactly as diffusers' randn_tensor makes them
// with `torch.Generator().manual_seed(seed)`: on the CPU, in the requested dtype, then moved to
// the device. Since LibTorch's CPU generator is PyTorch's, the same sequence of draws gives the
// same numbers as Python, on any device.
class SeededNoise {
public:
    explicit SeededNoise(std::uint64_t seed);

    at::Tensor randn(at::IntArrayRef shape, c10::ScalarType dtype, c10::Device device);
    // Noise shaped, typed and placed like its argument (the DPM scheduler's draws).
    at::Tensor like(const at::Tensor& tensor);
    NoiseSource source();
    at::Generator& generator() { return generator_; }

private:
    at::Generator generator_;
};

} // namespace tuneframe::diffusion
