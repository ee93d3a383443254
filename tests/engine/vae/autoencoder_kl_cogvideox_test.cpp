// AutoencoderKLCogVideoX against ../shared/golden/vae (diffusers 0.32.2): plain, frame-batched
// (17 frames), tiled and sliced runs.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_layers.h"
#include "tests/engine/t5/golden_compare.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models {
namespace {

using test::close_to;

class VaeGolden : public ::testing::Test {
protected:
    void SetUp() override {
        golden_ = test::golden_dir();
        if (golden_.empty()) {
            if (test::running_in_ci()) {
                FAIL() << "the golden sets (../shared/golden) are missing under CI";
            }
            GTEST_SKIP() << "no ../shared/golden";
        }
        inputs_ = core::read_tensors(golden_ / "vae" / "inputs.safetensors");
        outputs_ = core::read_tensors(golden_ / "vae" / "outputs.safetensors");
    }

    AutoencoderKLCogVideoX load(const WeightsPlacement& placement = {}) const {
        return load_autoencoder_kl_cogvideox(golden_ / "vae" / "vae", placement);
    }

    // Encodes `run`.video and decodes the golden mean; checks mean, logvar and decoded.
    void check_run(const std::string& run, const AutoencoderKLCogVideoX& vae) const {
        const auto posterior = vae->encode(inputs_.at(run + ".video"));
        for (const auto& [name, actual] :
             {std::pair{".latent_mean", posterior.mean}, {".latent_logvar", posterior.logvar}}) {
            const at::Tensor& expected = outputs_.at(run + name);
            EXPECT_TRUE(
                close_to("vae " + run + name, actual, expected, test::fp32_tolerance(expected)));
        }
        const at::Tensor& expected = outputs_.at(run + ".decoded");
        EXPECT_TRUE(close_to("vae " + run + ".decoded",
                             vae->decode(outputs_.at(run + ".latent_mean")), expected,
                             test::fp32_tolerance(expected)));
    }

    std::filesystem::path golden_;
    std::map<std::string, at::Tensor> inputs_;
    std::map<std::string, at::Tensor> outputs_;
};

TEST_F(VaeGolden, Basic) {
    check_run("basic", load());
}

TEST_F(VaeGolden, SeventeenFramesRunAsFrameBatchesWithConvCaches) {
    check_run("chunked", load());
}

TEST_F(VaeGolden, SlicedBatchOfTwoWithAnEvenLatentFrameCount) {
    auto vae = load();
    vae->enable_slicing();
    check_run("sliced", vae);
}

TEST_F(VaeGolden, TiledEncodeAndDecode) {
    const auto config = core::read_json_file(golden_ / "vae" / "config.json").at("tiling");
    auto vae = load();
    const at::Tensor& untiled = outputs_.at("tiled.untiled_latent_mean");
    EXPECT_TRUE(close_to("vae tiled.untiled_latent_mean",
                         vae->encode(inputs_.at("tiled.video")).mean, untiled,
                         test::fp32_tolerance(untiled)));
    vae->enable_tiling({config.at("tile_sample_min_height").get<std::int64_t>(),
                        config.at("tile_sample_min_width").get<std::int64_t>(),
                        config.at("tile_overlap_factor_height").get<double>(),
                        config.at("tile_overlap_factor_width").get<double>()});
    check_run("tiled", vae);
}

TEST_F(VaeGolden, Bf16OnTheCpuStaysWithinTheBf16Bound) {
    auto vae = load({torch::kBFloat16, torch::kCPU});
    const auto posterior = vae->encode(inputs_.at("basic.video"));
    EXPECT_EQ(posterior.mean.scalar_type(), torch::kBFloat16);
    const at::Tensor& mean = outputs_.at("basic.latent_mean");
    EXPECT_TRUE(
        close_to("vae bf16 basic.latent_mean", posterior.mean, mean, test::bf16_tolerance(mean)));
    const at::Tensor& decoded = outputs_.at("basic.decoded");
    EXPECT_TRUE(close_to("vae bf16 basic.decoded", vae->decode(mean), decoded,
                         test::bf16_tolerance(decoded)));
}

TEST_F(VaeGolden, ParameterNamesAreTheCheckpointKeys) {
    auto vae = load();
    std::vector<std::string> names;
    for (const auto& item : vae->named_parameters()) {
        names.push_back(item.key());
    }
    const core::SafetensorsCheckpoint checkpoint(golden_ / "vae" / "vae");
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, checkpoint.names());
}

// oneDNN 3.7 on AVX-512 CPUs gets bfloat16 convolutions with 3, 8 or 24 output channels wrong in
// the plain layout (the real decoder's conv_out has 3); the layers must not.
TEST(Vae, Bf16ConvolutionsWithFewOutputChannelsAgreeWithFloat32OnTheCpu) {
    torch::manual_seed(3);
    const auto bf16 = torch::TensorOptions(torch::kBFloat16);
    for (const std::int64_t out_channels : {3, 8, 24, 32}) {
        SCOPED_TRACE(out_channels);
        vae::CogVideoXSafeConv3d conv3d(16, out_channels, 3, bf16);
        vae::VaeConv2d conv2d(16, out_channels, 1, 1, bf16);
        torch::NoGradGuard no_grad;
        for (auto& parameter : conv3d->parameters()) {
            parameter.copy_(torch::randn(parameter.sizes()) * 0.1);
        }
        for (auto& parameter : conv2d->parameters()) {
            parameter.copy_(torch::randn(parameter.sizes()) * 0.1);
        }
        const at::Tensor video = torch::randn({1, 16, 5, 12, 16}).to(torch::kBFloat16);
        const at::Tensor expected3d =
            at::conv3d(video.to(torch::kFloat), conv3d->weight.to(torch::kFloat),
                       conv3d->bias.to(torch::kFloat));
        EXPECT_TRUE(close_to("conv3d", conv3d->forward(video), expected3d,
                             test::bf16_tolerance(expected3d)));
        const at::Tensor frames = video.permute({0, 2, 1, 3, 4}).reshape({5, 16, 12, 16});
        const at::Tensor expected2d =
            at::conv2d(frames.to(torch::kFloat), conv2d->weight.to(torch::kFloat),
                       conv2d->bias.to(torch::kFloat), 1, 1)
                .reshape({1, 5, out_channels, 12, 16})
                .permute({0, 2, 1, 3, 4});
        EXPECT_TRUE(close_to("conv2d", conv2d->forward_frames(video), expected2d,
                             test::bf16_tolerance(expected2d)));
    }
}

TEST(Vae, FrameBatchesFollowDiffusers) {
    using Batches = std::vector<std::pair<std::int64_t, std::int64_t>>;
    EXPECT_EQ(vae_frame_batches(49, 8),
              (Batches{{0, 9}, {9, 17}, {17, 25}, {25, 33}, {33, 41}, {41, 49}}));
    EXPECT_EQ(vae_frame_batches(13, 2),
              (Batches{{0, 3}, {3, 5}, {5, 7}, {7, 9}, {9, 11}, {11, 13}}));
    EXPECT_EQ(vae_frame_batches(5, 8), (Batches{{0, 5}}));
    EXPECT_EQ(vae_frame_batches(1, 2), (Batches{{0, 1}}));
    EXPECT_EQ(vae_frame_batches(10, 8), (Batches{{0, 10}}));
}

TEST(Vae, Fp16OnTheCpuIsAClearError) {
    AutoencoderKLCogVideoXConfig config;
    config.block_out_channels = {8, 8};
    config.norm_num_groups = 4;
    try {
        AutoencoderKLCogVideoX vae(config, WeightsPlacement{torch::kHalf, torch::kCPU});
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Unsupported);
    }
}

TEST(Vae, TileSizesWhoseStrideAndKeptPartDisagreeAreRefused) {
    AutoencoderKLCogVideoXConfig config;
    config.block_out_channels = {8, 8, 8, 8};
    config.norm_num_groups = 4;
    AutoencoderKLCogVideoX vae(config);
    vae->enable_tiling(); // 240x360, overlaps 1/6 and 1/5
    EXPECT_EQ(vae->tiling()->latent_height, 30);
    EXPECT_EQ(vae->tiling()->latent_width, 45);
    vae->enable_tiling({48, 40, 0, 0});
    // diffusers would step 24 pixels and keep 27 of each 32-pixel tile.
    EXPECT_THROW(vae->enable_tiling({32, 48, 0, 0}), core::Error);
}

TEST(Vae, AConfigWithForeignBlocksIsRejectedNamingTheField) {
    nlohmann::json json = AutoencoderKLCogVideoXConfig{}.to_json();
    json["down_block_types"][1] = "DownEncoderBlock2D";
    try {
        AutoencoderKLCogVideoXConfig::from_json(json, "vae/config.json");
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("down_block_types"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("vae/config.json"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::models
