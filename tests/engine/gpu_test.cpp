// Runs only where LibTorch sees a CUDA device; elsewhere every test reports itself skipped.
#include "engine/core/attention.h"
#include "engine/core/runtime_info.h"
#include "engine/core/tensor_io.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::core {
namespace {

class Gpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (!cuda_usable()) {
            GTEST_SKIP() << "no CUDA device";
        }
    }
};

TEST_F(Gpu, RuntimeInfoListsEveryCudaDevice) {
    nlohmann::json info = runtime_info();
    EXPECT_FALSE(info["cuda"].is_null());
    std::int64_t cuda_devices = 0;
    for (const auto& device : info["devices"]) {
        if (device["type"] == "cuda") {
            ++cuda_devices;
            EXPECT_GT(device["total_memory"].get<std::int64_t>(), 0);
            EXPECT_FALSE(device["name"].get<std::string>().empty());
        }
    }
    EXPECT_EQ(cuda_devices, static_cast<std::int64_t>(torch::cuda::device_count()));
}

TEST_F(Gpu, DeviceTensorsAreWrittenFromTheHost) {
    test::TemporaryDirectory dir;
    at::Tensor values = torch::randn({16, 8}, torch::kCUDA).to(torch::kBFloat16);
    write_tensors(dir / "gpu.safetensors", {{"x", values}});
    auto loaded = read_tensors(dir / "gpu.safetensors");
    EXPECT_TRUE(torch::equal(loaded.at("x"), values.cpu()));
}

TEST_F(Gpu, FusedAttentionAgreesWithCpuInBFloat16) {
    torch::manual_seed(3);
    at::Tensor q = torch::randn({2, 4, 128, 64});
    at::Tensor k = torch::randn({2, 4, 160, 64});
    at::Tensor v = torch::randn({2, 4, 160, 64});
    at::Tensor expected = tuneframe::core::scaled_dot_product_attention(q, k, v);
    auto to_gpu = [](const at::Tensor& t) {
        return t.to(torch::kCUDA, torch::kBFloat16);
    };
    at::Tensor actual =
        tuneframe::core::scaled_dot_product_attention(to_gpu(q), to_gpu(k), to_gpu(v));
    double bound = 2e-2 * expected.abs().max().item<double>();
    EXPECT_LT((actual.cpu().to(torch::kFloat32) - expected).abs().max().item<double>(), bound);
}

} // namespace
} // namespace tuneframe::core
