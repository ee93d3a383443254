// AutoencoderKLWan on tiny random models: config round trips and checks, causal chunking,
// tiling and slicing against the plain result, input errors, and the folders init-model writes.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/wan/vae/autoencoder_kl_wan.h"
#include "engine/models/wan/vae/autoencoder_kl_wan_init.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>

namespace tuneframe::models::wan {
namespace {

AutoencoderKLWan random_vae(const AutoencoderKLWanConfig& config, std::uint64_t seed = 7) {
    AutoencoderKLWan vae(config);
    initialise_autoencoder_kl_wan(*vae, seed);
    return vae;
}

at::Tensor random_video(std::vector<std::int64_t> shape, std::uint64_t seed = 3) {
    torch::manual_seed(seed);
    return torch::rand(shape) * 2 - 1;
}

double max_difference(const at::Tensor& a, const at::Tensor& b) {
    EXPECT_EQ(a.sizes(), b.sizes());
    return (a.to(torch::kFloat) - b.to(torch::kFloat)).abs().max().item<double>();
}

double max_abs(const at::Tensor& a) {
    return a.abs().max().item<double>();
}

// Runs `code`, expecting a core::Error of `code_expected` whose message and hint contain every
// one of `parts`.
void expect_error(const std::function<void()>& code, core::ErrorCode code_expected,
                  const std::vector<std::string>& parts) {
    try {
        code();
        ADD_FAILURE() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), code_expected);
        const std::string text = std::string(error.what()) + " | " + error.hint();
        for (const std::string& part : parts) {
            EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' not in: " << text;
        }
    }
}

TEST(WanVaeConfig, DefaultsAreTheWan21VaeAndRoundTrip) {
    const auto config = AutoencoderKLWanConfig::from_json(nlohmann::json::object(), "config.json");
    EXPECT_EQ(config.base_dim, 96);
    EXPECT_EQ(config.z_dim, 16);
    EXPECT_EQ(config.spatial_compression_ratio(), 8);
    EXPECT_EQ(config.temporal_compression_ratio(), 4);
    EXPECT_EQ(config.video_channels(), 3);
    EXPECT_EQ(config.latents_std.size(), 16u);
    const nlohmann::json json = config.to_json();
    EXPECT_EQ(json.at("temperal_downsample"), nlohmann::json({false, true, true}));
    EXPECT_TRUE(json.at("patch_size").is_null());
    EXPECT_TRUE(json.at("decoder_base_dim").is_null());
    EXPECT_FALSE(json.contains("clip_output"));
    EXPECT_EQ(AutoencoderKLWanConfig::from_json(json, "config.json").to_json(), json);
}

TEST(WanVaeConfig, Wan22LayoutRoundTrips) {
    AutoencoderKLWanConfig config = tiny_wan22_vae_config();
    config.clip_output = false;
    const nlohmann::json json = config.to_json();
    const auto back = AutoencoderKLWanConfig::from_json(json, "config.json");
    EXPECT_EQ(back.to_json(), json);
    EXPECT_EQ(back.spatial_compression_ratio(), 16);
    EXPECT_EQ(back.patch(), 2);
    EXPECT_EQ(back.video_channels(), 3);
    EXPECT_EQ(back.decoder_dim(), 12);
    EXPECT_FALSE(back.clip_output);
}

TEST(WanVaeConfig, InconsistentFieldsAreErrorsNamingTheFileAndField) {
    const nlohmann::json base = tiny_wan21_vae_config().to_json();
    const auto parse_with = [&](const char* key, const nlohmann::json& value) {
        nlohmann::json json = base;
        json[key] = value;
        return [json] {
            AutoencoderKLWanConfig::from_json(json, "vae/config.json");
        };
    };
    expect_error(parse_with("temperal_downsample", {true, true}), core::ErrorCode::BadInput,
                 {"vae/config.json", "temperal_downsample", "needs 3"});
    expect_error(parse_with("scale_factor_spatial", 16), core::ErrorCode::BadInput,
                 {"vae/config.json", "scale_factor_spatial", "compress by 8"});
    expect_error(parse_with("latents_mean", std::vector<double>(15, 0.0)),
                 core::ErrorCode::BadInput, {"latents_mean", "15 values", "z_dim is 16"});
    expect_error(parse_with("patch_size", 2), core::ErrorCode::BadInput,
                 {"in_channels", "patch_size"});
    expect_error(parse_with("base_dim", "eight"), core::ErrorCode::BadInput,
                 {"vae/config.json", "base_dim"});
    expect_error(parse_with("_class_name", "AutoencoderKLCogVideoX"), core::ErrorCode::Unsupported,
                 {"vae/config.json", "AutoencoderKLWan"});
}

TEST(WanVae, EncodesAndDecodesAwkwardSizesWithTheImpliedShapes) {
    const auto wan21 = random_vae(tiny_wan21_vae_config());
    const auto posterior = wan21->encode(random_video({2, 3, 9, 24, 40}));
    EXPECT_EQ(posterior.mean.sizes(), (std::vector<std::int64_t>{2, 16, 3, 3, 5}));
    EXPECT_EQ(posterior.logvar.sizes(), posterior.mean.sizes());
    EXPECT_LE(posterior.logvar.max().item<double>(), 20.0);
    const at::Tensor decoded = wan21->decode(posterior.mean);
    EXPECT_EQ(decoded.sizes(), (std::vector<std::int64_t>{2, 3, 9, 24, 40}));
    EXPECT_LE(max_abs(decoded), 1.0);

    const auto wan22 = random_vae(tiny_wan22_vae_config());
    const auto latent = wan22->encode(random_video({1, 3, 5, 48, 16})).mean;
    EXPECT_EQ(latent.sizes(), (std::vector<std::int64_t>{1, 48, 2, 3, 1}));
    EXPECT_EQ(wan22->decode(latent).sizes(), (std::vector<std::int64_t>{1, 3, 5, 48, 16}));
    // A single image, as the image-to-video pipelines encode it.
    EXPECT_EQ(wan22->encode(random_video({1, 3, 1, 32, 32})).mean.sizes(),
              (std::vector<std::int64_t>{1, 48, 1, 2, 2}));
}

// The causal caches make a clip's first frames code the same whatever follows them.
TEST(WanVae, EncodingAndDecodingAreCausal) {
    for (const auto& config : {tiny_wan21_vae_config(), tiny_wan22_vae_config()}) {
        SCOPED_TRACE(config.z_dim);
        const auto vae = random_vae(config);
        const at::Tensor video = random_video({1, 3, 13, 32, 32});
        const at::Tensor latent = vae->encode(video).mean; // [1, z, 4, h, w]
        const at::Tensor head = vae->encode(video.narrow(2, 0, 5)).mean;
        EXPECT_LT(max_difference(head, latent.narrow(2, 0, 2)), 1e-5);
        const at::Tensor decoded = vae->decode(latent);
        EXPECT_LT(max_difference(vae->decode(latent.narrow(2, 0, 2)), decoded.narrow(2, 0, 5)),
                  1e-5);
        // ... and the later frames do depend on the earlier ones.
        EXPECT_GT(max_difference(vae->encode(video.narrow(2, 4, 9)).mean.narrow(2, 1, 2),
                                 latent.narrow(2, 2, 2)),
                  1e-3);
    }
}

TEST(WanVae, SlicingGivesTheBatchedResult) {
    auto vae = random_vae(tiny_wan22_vae_config());
    const at::Tensor video = random_video({2, 3, 5, 32, 16});
    const auto batched = vae->encode(video);
    const at::Tensor decoded = vae->decode(batched.mean);
    vae->enable_slicing();
    const auto sliced = vae->encode(video);
    EXPECT_LT(max_difference(sliced.mean, batched.mean), 1e-5);
    EXPECT_LT(max_difference(sliced.logvar, batched.logvar), 1e-5);
    EXPECT_LT(max_difference(vae->decode(batched.mean), decoded), 1e-5);
}

// Keeps only the centre tap of every spatial kernel and silences the attention's output: the
// VAE then codes every aligned pixel block on its own, so a tile's result is exactly the
// matching part of the whole frame's, and tiling (cutting, blending, keeping, cropping) must
// reproduce the untiled result. With the full kernels the tiny models' receptive field (over
// 100 pixels) exceeds any tile a fast test affords and the mid block's attention is global, so
// tiles then differ from the whole frame by a third on average; the real VAEs use 256-pixel
// tiles.
void make_spatially_local(AutoencoderKLWanImpl& vae) {
    torch::NoGradGuard no_grad;
    for (auto& item : vae.named_parameters()) {
        at::Tensor& parameter = item.value();
        if (item.key().find(".proj.weight") != std::string::npos) {
            parameter.zero_();
            continue;
        }
        const std::int64_t height_dim = parameter.dim() - 2; // [out, in, (t,) h, w]
        if (parameter.dim() < 4 || parameter.size(height_dim) != 3) {
            continue;
        }
        const at::Tensor centre = parameter.narrow(height_dim, 1, 1).narrow(height_dim + 1, 1, 1);
        const at::Tensor kept = centre.clone();
        parameter.zero_();
        centre.copy_(kept);
    }
}

void check_tiling(const AutoencoderKLWanConfig& config, const std::vector<std::int64_t>& shape,
                  const WanVaeTiling& tiling) {
    auto vae = random_vae(config);
    make_spatially_local(*vae);
    const at::Tensor video = random_video(shape);
    const auto plain = vae->encode(video);
    const at::Tensor plain_decoded = vae->decode(plain.mean);
    vae->enable_tiling(tiling);
    const auto tiled = vae->encode(video);
    const double latent_error = max_difference(tiled.mean, plain.mean);
    const double video_error = max_difference(vae->decode(plain.mean), plain_decoded);
    std::printf("[ tiling   ] %s %s: max|tiled - untiled| latent %.3e, video %.3e\n",
                config.is_residual ? "wan2.2" : "wan2.1", c10::str(c10::IntArrayRef(shape)).c_str(),
                latent_error, video_error);
    EXPECT_LT(latent_error, 1e-5 * max_abs(plain.mean));
    EXPECT_LT(max_difference(tiled.logvar, plain.logvar), 1e-5 * max_abs(plain.logvar));
    EXPECT_LT(video_error, 1e-5);

    // The full model: tiles are used, and differ.
    auto full = random_vae(config);
    full->enable_tiling(tiling);
    EXPECT_GT(max_difference(full->encode(video).mean, plain.mean), 1e-2);

    WanVaeTiling whole = tiling;
    whole.tile_sample_min_height = whole.tile_sample_stride_height = shape[3] / 16 * 16 + 16;
    whole.tile_sample_min_width = whole.tile_sample_stride_width = shape[4] / 16 * 16 + 16;
    vae->enable_tiling(whole);
    EXPECT_TRUE(torch::equal(vae->encode(video).mean, plain.mean));
    EXPECT_TRUE(torch::equal(vae->decode(plain.mean), plain_decoded));
}

// Sizes that leave partial tiles at the bottom and right.
TEST(WanVaeTiling, Wan21TilesReproduceTheWholeFrame) {
    check_tiling(tiny_wan21_vae_config(), {1, 3, 5, 40, 72}, {32, 32, 16, 24});
}

// Wan 2.2 cuts the encoder's tiles from the patchified video with the pixel sizes as they are,
// and blends the decoder's before unpatchify, as diffusers does.
TEST(WanVaeTiling, Wan22TilesReproduceTheWholeFrame) {
    check_tiling(tiny_wan22_vae_config(), {1, 3, 5, 80, 112}, {32, 48, 16, 32});
}

TEST(WanVaeTiling, TileSizesThatDoNotFitAreRefused) {
    auto vae = random_vae(tiny_wan22_vae_config());
    expect_error(
        [&] {
            vae->enable_tiling({40, 48, 32, 32});
        },
        core::ErrorCode::BadInput, {"multiples of 16", "256"});
    expect_error(
        [&] {
            vae->enable_tiling({32, 32, 48, 32});
        },
        core::ErrorCode::BadInput, {"no stride larger than its tile"});
    EXPECT_FALSE(vae->tiling());
    vae->enable_tiling();
    EXPECT_EQ(vae->tiling()->tile_sample_min_height, 256);
    EXPECT_EQ(vae->tiling()->tile_sample_stride_width, 192);
}

TEST(WanVaeInput, BadVideosAndLatentsAreErrorsNamingTheExpectationAndTheFix) {
    const auto wan21 = random_vae(tiny_wan21_vae_config());
    expect_error(
        [&] {
            wan21->encode(random_video({1, 3, 8, 32, 32}));
        },
        core::ErrorCode::BadInput, {"1 + 4k", "not 8", "Trim the clip to 5", "pad it to 9"});
    expect_error(
        [&] {
            wan21->encode(random_video({1, 3, 5, 30, 32}));
        },
        core::ErrorCode::BadInput, {"multiples of 8", "30x32", "24x32"});
    expect_error(
        [&] {
            wan21->encode(random_video({1, 4, 5, 32, 32}));
        },
        core::ErrorCode::BadInput, {"[batch, 3,", "[1, 4, 5, 32, 32]"});
    expect_error(
        [&] {
            wan21->encode(random_video({3, 5, 32, 32}));
        },
        core::ErrorCode::BadInput, {"[B, C, F, H, W]"});
    expect_error(
        [&] {
            wan21->encode(torch::zeros({1, 3, 5, 32, 32}, torch::kLong));
        },
        core::ErrorCode::BadInput, {"float"});
    expect_error(
        [&] {
            wan21->decode(torch::zeros({1, 48, 2, 4, 4}));
        },
        core::ErrorCode::BadInput, {"latents", "[batch, 16,"});
    expect_error(
        [&] {
            normalize_latents(torch::zeros({1, 8, 2, 4, 4}), wan21->config());
        },
        core::ErrorCode::BadInput, {"[batch, 16,"});

    const auto wan22 = random_vae(tiny_wan22_vae_config());
    expect_error(
        [&] {
            wan22->encode(random_video({1, 3, 5, 40, 32}));
        },
        core::ErrorCode::BadInput, {"multiples of 16", "40x32", "32x32"});
    expect_error(
        [&] {
            wan22->encode(random_video({1, 12, 5, 32, 32}));
        },
        core::ErrorCode::BadInput, {"[batch, 3,"});
}

TEST(WanVaeLatents, NormalisationIsInvertedAndKeepsTheDtype) {
    const AutoencoderKLWanConfig config = tiny_wan22_vae_config();
    torch::manual_seed(5);
    const at::Tensor latents = torch::randn({2, 48, 3, 2, 2});
    const at::Tensor normalized = normalize_latents(latents, config);
    // Channel 17's std is 0.3523 and mean -0.1207.
    EXPECT_NEAR(normalized[1][17][2][1][0].item<double>(),
                (latents[1][17][2][1][0].item<double>() + 0.1207) / 0.3523, 1e-5);
    EXPECT_LT(max_difference(denormalize_latents(normalized, config), latents), 1e-6);
    const at::Tensor bf16 = normalize_latents(latents.to(torch::kBFloat16), config);
    EXPECT_EQ(bf16.scalar_type(), torch::kBFloat16);
    EXPECT_LT(max_difference(bf16, normalized), 2e-2 * max_abs(normalized));
}

TEST(WanVaeLayers, PatchifyOrdersChannelsAsDiffusersAndUnpatchifyInvertsIt) {
    const at::Tensor video = torch::arange(2 * 3 * 2 * 4 * 6).reshape({2, 3, 2, 4, 6});
    const at::Tensor patches = patchify(video, 2); // [2, 12, 2, 2, 3]
    ASSERT_EQ(patches.sizes(), (std::vector<std::int64_t>{2, 12, 2, 2, 3}));
    // Channel c * 4 + column offset * 2 + row offset.
    for (std::int64_t row = 0; row < 2; ++row) {
        for (std::int64_t column = 0; column < 2; ++column) {
            EXPECT_EQ(patches[1][2 * 4 + column * 2 + row][1][1][2].item<std::int64_t>(),
                      video[1][2][1][2 + row][4 + column].item<std::int64_t>());
        }
    }
    EXPECT_TRUE(torch::equal(unpatchify(patches, 2), video));
    EXPECT_TRUE(torch::equal(patchify(video, 1), video));
}

// oneDNN gets bfloat16 convolutions with few output channels wrong on some CPUs; the layers
// must agree with float32 whatever the CPU.
TEST(WanVaeLayers, Bf16ConvolutionsWithFewOutputChannelsAgreeWithFloat32) {
    torch::manual_seed(3);
    const auto bf16 = torch::TensorOptions(torch::kBFloat16);
    for (const std::int64_t out_channels : {3, 12, 32}) {
        SCOPED_TRACE(out_channels);
        WanCausalConv3d conv(16, out_channels, 3, 1, bf16);
        torch::NoGradGuard no_grad;
        for (auto& parameter : conv->parameters()) {
            parameter.copy_(torch::randn(parameter.sizes()) * 0.1);
        }
        const at::Tensor video = torch::randn({1, 16, 3, 12, 16}).to(torch::kBFloat16);
        const at::Tensor expected =
            at::conv3d(at::constant_pad_nd(video.to(torch::kFloat), {1, 1, 1, 1, 2, 0}, 0),
                       conv->weight.to(torch::kFloat), conv->bias.to(torch::kFloat));
        EXPECT_LT(max_difference(conv->forward(video), expected), 2e-2 * max_abs(expected));
    }
}

TEST(WanVaeFolders, RandomFoldersAreDeterministicAndLoadBack) {
    const test::TemporaryDirectory directory;
    const AutoencoderKLWanConfig config = tiny_wan22_vae_config();
    write_random_autoencoder_kl_wan(config, directory / "a", 11);
    write_random_autoencoder_kl_wan(config, directory / "b", 11);
    write_random_autoencoder_kl_wan(config, directory / "c", 12);
    const auto read = [](const std::filesystem::path& folder) {
        return test::read_bytes(folder / "diffusion_pytorch_model.safetensors");
    };
    EXPECT_EQ(read(directory / "a"), read(directory / "b"));
    EXPECT_NE(read(directory / "a"), read(directory / "c"));
    EXPECT_EQ(AutoencoderKLWanConfig::from_json(core::read_json_file(directory / "a/config.json"),
                                                "config.json")
                  .to_json(),
              config.to_json());

    const auto loaded = load_autoencoder_kl_wan(directory / "a");
    const auto original = random_vae(config, 11);
    const at::Tensor video = random_video({1, 3, 5, 32, 16});
    EXPECT_TRUE(torch::equal(loaded->encode(video).mean, original->encode(video).mean));

    // Saving what was loaded writes the same file.
    save_autoencoder_kl_wan(*loaded, directory / "d");
    EXPECT_EQ(read(directory / "d"), read(directory / "a"));
}

TEST(WanVaeFolders, Bf16FoldersLoadInEitherPrecision) {
    const test::TemporaryDirectory directory;
    write_random_autoencoder_kl_wan(tiny_wan21_vae_config(), directory.path(), 4, torch::kBFloat16);
    const auto tensors = core::read_tensors(directory / "diffusion_pytorch_model.safetensors");
    EXPECT_EQ(tensors.at("encoder.conv_in.weight").scalar_type(), torch::kBFloat16);
    const auto fp32 = load_autoencoder_kl_wan(directory.path());
    const auto bf16 = load_autoencoder_kl_wan(directory.path(), {torch::kBFloat16, torch::kCPU});
    EXPECT_TRUE(torch::equal(fp32->named_parameters()["decoder.conv_out.weight"],
                             tensors.at("decoder.conv_out.weight").to(torch::kFloat)));
    const at::Tensor video = random_video({1, 3, 5, 16, 16});
    const at::Tensor mean = fp32->encode(video).mean;
    EXPECT_EQ(bf16->encode(video).mean.scalar_type(), torch::kBFloat16);
    EXPECT_EQ(bf16->decode(mean).scalar_type(), torch::kBFloat16);
}

TEST(WanVaeFolders, WeightsThatDoNotFitTheConfigAreOneErrorNamingTheFile) {
    const test::TemporaryDirectory directory;
    write_random_autoencoder_kl_wan(tiny_wan21_vae_config(), directory.path(), 4);
    const auto weights = directory / "diffusion_pytorch_model.safetensors";
    auto tensors = core::read_tensors(weights);
    tensors.erase("decoder.norm_out.gamma");
    tensors["encoder.extra.weight"] = torch::zeros({2});
    tensors["quant_conv.weight"] = torch::zeros({32, 32, 1, 1});
    core::NamedTensors named(tensors.begin(), tensors.end());
    core::write_tensors(weights, named, {{"format", "pt"}});
    expect_error(
        [&] { load_autoencoder_kl_wan(directory.path()); }, core::ErrorCode::BadInput,
        {weights.string(), "decoder.norm_out.gamma", "encoder.extra.weight", "quant_conv.weight"});
}

TEST(WanVaeFolders, ABrokenConfigNamesItsFile) {
    const test::TemporaryDirectory directory;
    write_random_autoencoder_kl_wan(tiny_wan21_vae_config(), directory.path(), 4);
    nlohmann::json json = core::read_json_file(directory / "config.json");
    json["dim_mult"] = {1, 2};
    core::write_json_file(directory / "config.json", json);
    expect_error([&] { load_autoencoder_kl_wan(directory.path()); }, core::ErrorCode::BadInput,
                 {(directory / "config.json").string(), "temperal_downsample"});
}

} // namespace
} // namespace tuneframe::models::wan
