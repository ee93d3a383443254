// `tuneframe-engine forward vae-encode / vae-decode` reproduce ../shared/golden/vae from the
// command line.
#include "engine/core/tensor_io.h"
#include "tests/engine/t5/golden_compare.h"
#include "tests/support/process_runner.h"

#include <gtest/gtest.h>

namespace tuneframe {
namespace {

using test::close_to;

struct VaeCliCase {
    const char* run;
    std::vector<std::string> flags;
};

class ForwardVaeCli : public ::testing::TestWithParam<VaeCliCase> {};

TEST_P(ForwardVaeCli, ReproducesTheGoldenRun) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    const VaeCliCase& param = GetParam();
    const std::string run = param.run;
    test::TemporaryDirectory dir;
    const auto vae = (golden / "vae" / "vae").string();
    auto command = [&](const std::string& component, const std::string& inputs,
                       const std::string& out) {
        std::vector<std::string> argv = {
            test::engine_path(), "forward",  component, "--model", vae,
            "--inputs",          inputs,     "--out",   out,       "--input-prefix",
            run + ".",           "--device", "cpu"};
        argv.insert(argv.end(), param.flags.begin(), param.flags.end());
        return argv;
    };
    auto encoded = test::run_process(command(
        "vae-encode", (golden / "vae" / "inputs.safetensors").string(), (dir / "enc.safetensors")));
    ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
    // The decode starts from the golden mean (the golden decodes it), read as --input-prefix
    // RUN. from outputs.safetensors: latent_mean stands in for the missing latent.
    auto decoded =
        test::run_process(command("vae-decode", (golden / "vae" / "outputs.safetensors").string(),
                                  (dir / "dec.safetensors")));
    ASSERT_EQ(decoded.exit_code, 0) << decoded.err;

    const auto expected = core::read_tensors(golden / "vae" / "outputs.safetensors");
    const auto enc = core::read_tensors(dir / "enc.safetensors");
    const auto dec = core::read_tensors(dir / "dec.safetensors");
    for (const auto& [name, actual] : {std::pair{"latent_mean", enc.at("latent_mean")},
                                       {"latent_logvar", enc.at("latent_logvar")},
                                       {"decoded", dec.at("decoded")}}) {
        const at::Tensor& reference = expected.at(run + "." + name);
        EXPECT_TRUE(close_to("cli vae " + run + "." + name, actual, reference,
                             test::fp32_tolerance(reference)));
    }
}

INSTANTIATE_TEST_SUITE_P(Golden, ForwardVaeCli,
                         ::testing::Values(VaeCliCase{"basic", {}}, VaeCliCase{"chunked", {}},
                                           VaeCliCase{"sliced", {"--slicing"}},
                                           VaeCliCase{"tiled",
                                                      {"--tiling", "--tile-sample-min-height", "32",
                                                       "--tile-sample-min-width", "32",
                                                       "--tile-overlap-factor-height", "0.25",
                                                       "--tile-overlap-factor-width", "0.25"}}),
                         [](const auto& info) { return std::string(info.param.run); });

TEST(ForwardVaeCliErrors, TileOptionsWithoutTilingAreAUsageError) {
    auto result =
        test::run_process({test::engine_path(), "forward", "vae-decode", "--model", "m", "--inputs",
                           "i", "--out", "o", "--tile-sample-min-height", "32"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--tiling"), std::string::npos) << result.err;
}

} // namespace
} // namespace tuneframe
