// The VAE and T5 on CUDA: bf16/fp16 against the fp32 golden, and a real-size tiled decode
// within a third of a 24 GB card. Skipped without a CUDA device.
#include "engine/core/device/memory_stats.h"
#include "engine/core/device/runtime_info.h"
#include "engine/core/tensor_io.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"
#include "engine/models/t5/t5_encoder.h"
#include "tests/engine/t5/golden_compare.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#ifdef TUNEFRAME_TORCH_CUDA
#include <c10/cuda/CUDACachingAllocator.h>
#endif

#include <chrono>

namespace tuneframe::models {
namespace {

using test::close_to;

class VaeT5Gpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (!core::cuda_usable()) {
            GTEST_SKIP() << "no CUDA device";
        }
    }
};

TEST_F(VaeT5Gpu, Bf16VaeMatchesTheGoldenWithinTheBf16Bound) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    const auto inputs = core::read_tensors(golden / "vae" / "inputs.safetensors");
    const auto outputs = core::read_tensors(golden / "vae" / "outputs.safetensors");
    auto vae = load_autoencoder_kl_cogvideox(golden / "vae" / "vae",
                                             WeightsPlacement{torch::kBFloat16, torch::kCUDA});
    for (const std::string run : {"basic", "chunked"}) {
        const at::Tensor& mean = outputs.at(run + ".latent_mean");
        EXPECT_TRUE(close_to("gpu bf16 vae " + run + ".latent_mean",
                             vae->encode(inputs.at(run + ".video")).mean, mean,
                             test::bf16_tolerance(mean)));
        const at::Tensor& decoded = outputs.at(run + ".decoded");
        EXPECT_TRUE(close_to("gpu bf16 vae " + run + ".decoded", vae->decode(mean), decoded,
                             test::bf16_tolerance(decoded)));
    }
}

TEST_F(VaeT5Gpu, Fp16T5KeepsWoInFp32AndMatchesTheGolden) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    torch::NoGradGuard no_grad;
    const auto inputs = core::read_tensors(golden / "t5" / "inputs.safetensors");
    const auto outputs = core::read_tensors(golden / "t5" / "outputs.safetensors");
    auto t5 = load_t5_encoder(golden / "t5" / "text_encoder",
                              WeightsPlacement{torch::kHalf, torch::kCUDA});
    for (const auto& item : t5->named_parameters()) {
        const bool wo = item.key().find("DenseReluDense.wo.") != std::string::npos;
        EXPECT_EQ(item.value().scalar_type(), wo ? torch::kFloat : torch::kHalf) << item.key();
    }
    const at::Tensor& expected = outputs.at("last_hidden_state_nomask");
    const at::Tensor out = t5(inputs.at("input_ids"));
    EXPECT_EQ(out.scalar_type(), torch::kHalf);
    EXPECT_TRUE(close_to("gpu fp16 t5 last_hidden_state_nomask", out, expected,
                         test::bf16_tolerance(expected)));
}

TEST_F(VaeT5Gpu, RealSizeTiledDecodeOf49x480x720FitsInAThirdOfA24GbCard) {
    constexpr double kBudget = 8.0 * (1 << 30);
    // The driver's own count (cudaMemGetInfo), not the runtime's device properties.
    const auto total =
        static_cast<double>(core::memory_stats(torch::Device(torch::kCUDA, 0)).total);
    if (total <= kBudget) {
        GTEST_SKIP() << "the device has no more than 8 GiB (" << total << " bytes)";
    }
#ifdef TUNEFRAME_TORCH_CUDA
    // LibTorch's allocator is set up by the first CUDA allocation; before that (this test run
    // alone) setMemoryFraction refuses the device ("Invalid device argument").
    (void)torch::empty({1}, torch::kCUDA);
    // Allocations beyond the budget fail with an out-of-memory error instead of succeeding.
    c10::cuda::CUDACachingAllocator::setMemoryFraction(kBudget / total, 0);
#endif
    torch::NoGradGuard no_grad;
    AutoencoderKLCogVideoX vae(AutoencoderKLCogVideoXConfig{},
                               WeightsPlacement{torch::kBFloat16, torch::kCUDA});
    initialise_autoencoder_kl_cogvideox(*vae, 0);
    vae->enable_tiling();
    const at::Tensor latent = torch::randn({1, 16, 13, 60, 90}).to(torch::kCUDA, torch::kBFloat16);
    const auto start = std::chrono::steady_clock::now();
    const at::Tensor video = vae->decode(latent);
    torch::cuda::synchronize();
    std::cout << "real-size tiled bf16 decode 13x60x90: "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()
              << " s" << std::endl;
    EXPECT_EQ(video.sizes(), (std::vector<std::int64_t>{1, 3, 49, 480, 720}));
    EXPECT_TRUE(torch::isfinite(video).all().item<bool>());
}

} // namespace
} // namespace tuneframe::models
