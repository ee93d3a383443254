#include "engine/diffusion/seeded_noise.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

namespace tuneframe::diffusion {

SeededNoise::SeededNoise(std::uint64_t seed)
    : generator_(at::make_generator<at::CPUGeneratorImpl>(seed)) {}

at::Tensor SeededNoise::randn(at::IntArrayRef shape, c10::ScalarType dtype, c10::Device device) {
    // ATen's CPU normal kernel takes the generator's mutex itself.
    return at::randn(shape, generator_, at::TensorOptions().dtype(dtype)).to(device);
}

at::Tensor SeededNoise::like(const at::Tensor& tensor) {
    return randn(tensor.sizes(), tensor.scalar_type(), tensor.device());
}

NoiseSource SeededNoise::source() {
    return [this](const at::Tensor& tensor) {
        return like(tensor);
    };
}

} // namespace tuneframe::diffusion
