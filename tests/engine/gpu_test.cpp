// Runs only where LibTorch sees a CUDA device; elsewhere every test reports itself skipped.
#include "engine/core/device/runtime_info.h"
#include "engine/core/kernels/attention.h"
#include "engine/core/kernels/kept_attention.h"
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

// Kept attention calls each fused kernel's forward and backward itself: its gradients must be
// what autograd gets through scaled_dot_product_attention with the same kernel.
class KeptAttentionOnGpu : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        if (!cuda_usable()) {
            GTEST_SKIP() << "no CUDA device";
        }
        if (!KeptAttention::available()) {
            GTEST_SKIP() << "LibTorch " TORCH_VERSION " does not keep attention (2.6+)";
        }
        select_attention_backend(GetParam());
    }
    void TearDown() override { select_attention_backend("auto"); }
};

TEST_P(KeptAttentionOnGpu, GradientsEqualAutogradsThroughTheSameKernel) {
    torch::manual_seed(4);
    const auto options = torch::TensorOptions().device(torch::kCUDA).dtype(torch::kBFloat16);
    // CogVideoX's head size; the real models' sequences are longer, not different in kind.
    const at::Tensor q = torch::randn({1, 6, 1500, 64}, options);
    const at::Tensor k = torch::randn({1, 6, 1500, 64}, options);
    const at::Tensor v = torch::randn({1, 6, 1500, 64}, options);
    const at::Tensor upstream = torch::randn({1, 6, 1500, 64}, options);
    auto leaves = [&] {
        return std::vector<at::Tensor>{q.detach().requires_grad_(true),
                                       k.detach().requires_grad_(true),
                                       v.detach().requires_grad_(true)};
    };
    const std::vector<at::Tensor> plain = leaves();
    const at::Tensor expected = core::scaled_dot_product_attention(plain[0], plain[1], plain[2]);
    (expected.to(torch::kFloat32) * upstream).sum().backward();

    KeptAttention kept;
    {
        torch::NoGradGuard no_grad;
        kept.attend(q, k, v);
    }
    const std::vector<at::Tensor> recomputed = leaves();
    const at::Tensor out = kept.attend(recomputed[0], recomputed[1], recomputed[2]);
    (out.to(torch::kFloat32) * upstream).sum().backward();
    EXPECT_LT((out - expected).abs().max().item<double>(), 1e-2);
    for (std::size_t i = 0; i < 3; ++i) {
        const double scale = plain[i].grad().abs().max().item<double>();
        EXPECT_GT(scale, 0.0) << i;
        EXPECT_LT((recomputed[i].grad() - plain[i].grad()).abs().max().item<double>(), 1e-2 * scale)
            << GetParam() << " gradient " << i;
    }
}

INSTANTIATE_TEST_SUITE_P(Kernels, KeptAttentionOnGpu,
                         ::testing::Values("auto", "flash", "efficient", "cudnn"));

} // namespace
} // namespace tuneframe::core
