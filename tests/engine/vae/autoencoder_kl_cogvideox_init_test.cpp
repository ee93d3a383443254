// The tiny VAE init-model writes loads back and codes a clip quickly.
#include "engine/models/cogvideox/vae/autoencoder_kl_cogvideox_init.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <chrono>
#include <iostream>

namespace tuneframe::models {
namespace {

TEST(TinyVae, LoadsBackAndCodesANineFrameClipQuickly) {
    test::TemporaryDirectory dir;
    write_random_autoencoder_kl_cogvideox(tiny_autoencoder_kl_cogvideox_config(), dir / "vae", 5);
    auto vae = load_autoencoder_kl_cogvideox(dir / "vae");
    torch::manual_seed(0);
    const at::Tensor video = torch::rand({1, 3, 9, 32, 32}) * 2 - 1;

    const auto start = std::chrono::steady_clock::now();
    const auto posterior = vae->encode(video);
    const double encode_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "tiny VAE encode of 9x32x32: " << encode_s << " s" << std::endl;
    EXPECT_LT(encode_s, 5.0); // about 10 ms; generous for loaded CI machines
    EXPECT_EQ(posterior.mean.sizes(), (std::vector<std::int64_t>{1, 16, 3, 4, 4}));

    const at::Tensor decoded =
        vae->decode(posterior.sample(at::make_generator<at::CPUGeneratorImpl>(1)));
    EXPECT_EQ(decoded.sizes(), video.sizes());
    EXPECT_TRUE(torch::isfinite(decoded).all().item<bool>());
}

TEST(TinyVae, IsTheSameForTheSameSeedAndDiffersForAnother) {
    test::TemporaryDirectory dir;
    const auto config = tiny_autoencoder_kl_cogvideox_config();
    write_random_autoencoder_kl_cogvideox(config, dir / "a", 5);
    write_random_autoencoder_kl_cogvideox(config, dir / "b", 5);
    write_random_autoencoder_kl_cogvideox(config, dir / "c", 6);
    const auto weights = "diffusion_pytorch_model.safetensors";
    EXPECT_EQ(test::read_bytes(dir / "a" / weights), test::read_bytes(dir / "b" / weights));
    EXPECT_NE(test::read_bytes(dir / "a" / weights), test::read_bytes(dir / "c" / weights));
}

} // namespace
} // namespace tuneframe::models
