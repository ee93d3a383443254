// The embedded demo's VAE codes a clip exactly as its block colours: the latent holds the mean
// colour of each 8x8 block of each latent frame's frames, the decoder paints them back.
#include "engine/core/error.h"
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"
#include "engine/models/cogvideox/vae/block_average_vae.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models {
namespace {

AutoencoderKLCogVideoX block_average_tiny_vae() {
    AutoencoderKLCogVideoX vae(tiny_autoencoder_kl_cogvideox_config(16));
    initialise_autoencoder_kl_cogvideox(*vae, 3);
    make_block_average_autoencoder(*vae);
    return vae;
}

// What the codec should hold: frame 0 alone, then frames 1-4 and 5-8 averaged (the causal
// VAE's 4x time compression of 9 frames), each 8x8 block averaged: [1, 3, 3, H/8, W/8].
at::Tensor block_colours(const at::Tensor& video) {
    const at::Tensor groups = at::cat({video.narrow(2, 0, 1), video.narrow(2, 1, 4).mean(2, true),
                                       video.narrow(2, 5, 4).mean(2, true)},
                                      2);
    return at::avg_pool3d(groups, {1, 8, 8});
}

TEST(BlockAverageVae, CodesEachBlocksMeanColourAndPaintsItBack) {
    const AutoencoderKLCogVideoX vae = block_average_tiny_vae();
    torch::manual_seed(0);
    const at::Tensor video = torch::rand({1, 3, 9, 32, 48}) * 2 - 1;
    const DiagonalGaussianDistribution posterior = vae->encode(video);
    const at::Tensor expected = block_colours(video);
    ASSERT_EQ(posterior.mean.sizes(), (std::vector<std::int64_t>{1, 16, 3, 4, 6}));
    EXPECT_LT((posterior.mean.narrow(1, 0, 3) - expected).abs().max().item<double>(), 1e-4);
    EXPECT_LT(posterior.mean.narrow(1, 3, 13).abs().max().item<double>(), 1e-6);
    EXPECT_LT(posterior.std.max().item<double>(), 1e-4);

    const at::Tensor decoded = vae->decode(posterior.mean);
    ASSERT_EQ(decoded.sizes(), video.sizes());
    // Every pixel of a block, in every frame its latent frame stands for, is the block colour.
    const at::Tensor painted =
        at::cat({expected.narrow(2, 0, 1), expected.narrow(2, 1, 1).expand({-1, -1, 4, -1, -1}),
                 expected.narrow(2, 2, 1).expand({-1, -1, 4, -1, -1})},
                2)
            .repeat_interleave(8, 3)
            .repeat_interleave(8, 4);
    EXPECT_LT((decoded - painted).abs().max().item<double>(), 1e-4);
    // A flat clip comes back as it was, borders included.
    const at::Tensor flat = torch::full({1, 3, 9, 32, 48}, 0.25);
    EXPECT_LT((vae->decode(vae->encode(flat).mean) - flat).abs().max().item<double>(), 1e-4);
    EXPECT_NEAR(autoencoder_reconstruction_error(*vae, {flat}), 0.0, 1e-4);
    EXPECT_GT(autoencoder_reconstruction_error(*vae, {video}), 0.3); // noise has no blocks
}

TEST(BlockAverageVae, ItsScaleGivesTheColoursUnitVariance) {
    const AutoencoderKLCogVideoX vae = block_average_tiny_vae();
    torch::manual_seed(1);
    const std::vector<at::Tensor> clips = {torch::rand({1, 3, 9, 32, 48}) * 0.5,
                                           torch::rand({1, 3, 9, 32, 48}) * 0.2 - 0.6};
    const double scale = block_average_latent_scale(*vae, clips);
    std::vector<at::Tensor> colours;
    for (const at::Tensor& clip : clips) {
        colours.push_back(block_colours(clip).flatten());
    }
    EXPECT_NEAR(at::cat(colours).std().item<double>() * scale, 1.0, 1e-3);
}

TEST(BlockAverageVae, RefusesAVaeWithoutRoomForIt) {
    AutoencoderKLCogVideoXConfig config = tiny_autoencoder_kl_cogvideox_config(16);
    config.block_out_channels = {16, 32, 64, 64}; // the last block keeps its width
    AutoencoderKLCogVideoX same_width(config);
    initialise_autoencoder_kl_cogvideox(*same_width, 4);
    const at::Tensor before = same_width->named_parameters()["encoder.conv_in.conv.weight"].clone();
    EXPECT_THROW(make_block_average_autoencoder(*same_width), core::Error);
    // Refused before any weight changed.
    EXPECT_TRUE(
        torch::equal(same_width->named_parameters()["encoder.conv_in.conv.weight"], before));
    config = tiny_autoencoder_kl_cogvideox_config(16);
    config.norm_num_groups = 16; // groups of 4 in the last block
    AutoencoderKLCogVideoX small_groups(config);
    EXPECT_THROW(make_block_average_autoencoder(*small_groups), core::Error);
}

} // namespace
} // namespace tuneframe::models
