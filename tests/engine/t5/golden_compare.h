#pragma once

// Comparison against ../shared/golden in the MANIFEST's terms.
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>
#include <string>

namespace tuneframe::test {

// The MANIFEST's check for float32 models: max|a - ref| <= 1e-4 + 1e-4 * max|ref|.
inline double fp32_tolerance(const at::Tensor& reference) {
    return 1e-4 + 1e-4 * reference.abs().max().item<double>();
}

// ARCHITECTURE: bf16 runs against the fp32 golden: max|a - ref| <= 2e-2 * max|ref|.
inline double bf16_tolerance(const at::Tensor& reference) {
    return 2e-2 * reference.abs().max().item<double>();
}

// Shapes equal and max|actual - reference| within `tolerance`; prints the error reached so
// the test log records it.
inline ::testing::AssertionResult close_to(const std::string& what, const at::Tensor& actual,
                                           const at::Tensor& reference, double tolerance) {
    if (actual.sizes() != reference.sizes()) {
        return ::testing::AssertionFailure()
               << what << ": shape " << actual.sizes() << ", expected " << reference.sizes();
    }
    const double error = (actual.to(torch::kCPU, torch::kDouble) - reference.to(torch::kDouble))
                             .abs()
                             .max()
                             .item<double>();
    std::cout << "[ golden   ] " << what << ": max|diff| = " << error << " (tolerance " << tolerance
              << ")" << std::endl;
    if (!(error <= tolerance)) {
        return ::testing::AssertionFailure()
               << what << ": max|diff| " << error << " exceeds " << tolerance;
    }
    return ::testing::AssertionSuccess();
}

// The golden folder, or empty after a skip; under CI a missing set fails the test.
#define TUNEFRAME_REQUIRE_GOLDEN(dir)                                                              \
    const std::filesystem::path dir = ::tuneframe::test::golden_dir();                             \
    if (dir.empty()) {                                                                             \
        if (::tuneframe::test::running_in_ci()) {                                                  \
            FAIL() << "the golden sets (../shared/golden) are missing under CI";                   \
        }                                                                                          \
        GTEST_SKIP() << "no ../shared/golden";                                                     \
    }

} // namespace tuneframe::test
