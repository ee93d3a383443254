#include "engine/diffusion/classifier_free_guidance.h"

#include <ATen/TensorOperators.h>

#include <cmath>

namespace tuneframe::diffusion {

double dynamic_guidance_scale(double guidance, int steps, std::int64_t timestep) {
    const double base =
        (static_cast<double>(steps) - static_cast<double>(timestep)) / static_cast<double>(steps);
    // pow with an integral exponent keeps the sign of a negative base, like Python's ** 5.0.
    return 1.0 + guidance * ((1.0 - std::cos(M_PI * std::pow(base, 5.0))) / 2.0);
}

at::Tensor apply_guidance(const at::Tensor& prediction, double scale) {
    const auto halves = prediction.chunk(2);
    const at::Tensor& uncond = halves[0];
    const at::Tensor& text = halves[1];
    return uncond + scale * (text - uncond);
}

} // namespace tuneframe::diffusion
