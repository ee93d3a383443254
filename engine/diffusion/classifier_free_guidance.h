#pragma once

#include <ATen/Tensor.h>

#include <cstdint>

namespace tuneframe::diffusion {

// CogVideoX's dynamic guidance, computed exactly as diffusers does: with t the timestep VALUE
// (999 ... 0), the base (steps - t) / steps is mostly negative, so its fifth power makes the
// scale oscillate between 1 and 1 + guidance. Kept as it is on purpose (diffusers #9641: the
// wave was found to help, and the official SAT code does the same).
double dynamic_guidance_scale(double guidance, int steps, std::int64_t timestep);

// v_uncond + scale (v_text - v_uncond) on a [2B, ...] prediction ordered [uncond; text].
at::Tensor apply_guidance(const at::Tensor& prediction, double scale);

} // namespace tuneframe::diffusion
