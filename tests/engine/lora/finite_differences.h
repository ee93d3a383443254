#pragma once

// Autograd against central differences in float64, for the LoRA layers' hand-written paths.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace tuneframe::lora::testing {

// For every `stride`-th element of each tensor, its gradient from the last backward of `loss`
// against (loss(x + eps) - loss(x - eps)) / 2 eps, within `tolerance`. The tensors are float64
// and restored afterwards.
inline void expect_gradients_match_finite_differences(const std::vector<at::Tensor>& tensors,
                                                      const std::function<at::Tensor()>& loss,
                                                      std::int64_t stride, double tolerance) {
    const double eps = 1e-6;
    for (const at::Tensor& tensor : tensors) {
        const at::Tensor analytic = tensor.grad().clone();
        const at::Tensor flat = tensor.detach().view({-1});
        for (std::int64_t i = 0; i < flat.numel(); i += stride) {
            const double original = flat[i].item<double>();
            double plus = 0;
            double minus = 0;
            {
                torch::NoGradGuard no_grad;
                flat[i] = original + eps;
                plus = loss().item<double>();
                flat[i] = original - eps;
                minus = loss().item<double>();
                flat[i] = original;
            }
            EXPECT_NEAR(analytic.view({-1})[i].item<double>(), (plus - minus) / (2 * eps),
                        tolerance)
                << "element " << i << " of a " << tensor.sizes() << " tensor";
        }
    }
}

} // namespace tuneframe::lora::testing
