#pragma once

// Helpers shared by the optimizer suites: parameters with gradients, and comparisons that
// report their error.
#include "engine/train/optim/optimizer.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

namespace tuneframe::train::test_support {

inline at::Tensor make_parameter(const at::Tensor& value, at::ScalarType dtype = at::kFloat) {
    return value.detach().to(dtype).clone().set_requires_grad(true);
}

// Each parameter's gradient set to a fresh copy of `gradients[i]`, in the parameter's dtype.
inline void set_gradients(const NamedParameters& parameters,
                          const std::vector<at::Tensor>& gradients) {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
        const at::Tensor& param = parameters[i].second;
        param.mutable_grad() = gradients[i].detach().to(param.scalar_type()).clone();
    }
}

inline NamedParameters clone_parameters(const NamedParameters& parameters) {
    NamedParameters copy;
    for (const auto& [name, tensor] : parameters) {
        copy.emplace_back(name, tensor.detach().clone().set_requires_grad(true));
    }
    return copy;
}

inline double max_abs(const at::Tensor& tensor) {
    return tensor.numel() ? tensor.to(at::kDouble).abs().max().item<double>() : 0.0;
}

inline double max_abs_difference(const at::Tensor& actual, const at::Tensor& expected) {
    return max_abs(actual.to(at::kDouble) - expected.to(at::kDouble));
}

// max |actual - expected| <= relative * max |expected|, shapes equal; returns the error.
inline double expect_close(const at::Tensor& actual, const at::Tensor& expected,
                           const std::string& what, double relative) {
    EXPECT_EQ(actual.sizes(), expected.sizes()) << what;
    if (actual.sizes() != expected.sizes()) {
        return INFINITY;
    }
    const double error = max_abs_difference(actual, expected);
    EXPECT_LE(error, relative * max_abs(expected)) << what;
    return error;
}

inline bool bit_equal(const at::Tensor& a, const at::Tensor& b) {
    return a.scalar_type() == b.scalar_type() && a.sizes() == b.sizes() &&
           a.device() == b.device() && torch::equal(a, b);
}

} // namespace tuneframe::train::test_support
