#pragma once

// Grad mode for files that include ATen's headers rather than all of <torch/torch.h>. LibTorch
// 1.13's <ATen/Tensor.h> brought these in on its way; 2.x does not, and only the precompiled
// header hid that. ATen/core/grad_mode.h has them under these names in 1.13 and every 2.x.

#include <ATen/core/grad_mode.h>

namespace tuneframe::core {

using GradMode = at::GradMode;
using AutoGradMode = at::AutoGradMode;
using NoGradGuard = at::NoGradGuard;

} // namespace tuneframe::core
