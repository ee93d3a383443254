#pragma once

#include <ATen/Tensor.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

namespace tuneframe::test {

// A test that reads ../shared/golden: skipped where the set is absent, failed under CI.
class GoldenTest : public ::testing::Test {
protected:
    void SetUp() override;
    std::filesystem::path golden_;
};

// The same for ../shared/golden-wan: `golden_` is that folder.
class WanGoldenTest : public ::testing::Test {
protected:
    void SetUp() override;
    std::filesystem::path golden_;
};

// Reads `relative` ("transformer_2b/inputs.safetensors") and checks every tensor's name,
// dtype and shape against MANIFEST.md's table for that file (the contract), so a test never
// runs on tensors the manifest does not promise.
std::map<std::string, at::Tensor> read_golden(const std::filesystem::path& golden,
                                              const std::string& relative);

struct Difference {
    double max_abs = 0;
    double max_ref = 0;
};
Difference compare(const at::Tensor& actual, const at::Tensor& expected);

// The bounds the architecture decisions set: float32 1e-4 + 1e-4 * max|ref|, bf16
// 2e-2 * max|ref| (against the float32 reference).
double fp32_bound(const Difference& difference);
double bf16_bound(const Difference& difference);

// Asserts `difference` within `bound` and logs the error reached, so the run's output lists it
// per case.
void expect_within(const std::string& label, const Difference& difference, double bound);

} // namespace tuneframe::test
