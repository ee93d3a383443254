#include "engine/models/diagonal_gaussian_distribution.h"

#include <ATen/ATen.h>

namespace tuneframe::models {

DiagonalGaussianDistribution::DiagonalGaussianDistribution(const at::Tensor& parameters) {
    const std::vector<at::Tensor> halves = parameters.chunk(2, 1);
    mean = halves[0];
    logvar = at::clamp(halves[1], -30.0, 20.0);
    std = at::exp(0.5 * logvar);
}

at::Tensor DiagonalGaussianDistribution::sample(std::optional<at::Generator> generator) const {
    if (generator && generator->device().is_cpu() && !mean.is_cpu()) {
        const at::Tensor noise =
            at::randn(mean.sizes(), *generator, mean.options().device(c10::kCPU));
        return sample_with_noise(noise.to(mean.device()));
    }
    c10::optional<at::Generator> draw;
    if (generator) {
        draw = *generator;
    }
    return sample_with_noise(at::randn(mean.sizes(), draw, mean.options()));
}

at::Tensor DiagonalGaussianDistribution::sample_with_noise(const at::Tensor& noise) const {
    return mean + std * noise.to(mean.options());
}

} // namespace tuneframe::models
