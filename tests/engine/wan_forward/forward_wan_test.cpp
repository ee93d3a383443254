// `tuneframe-engine forward` on Wan components from the command line, with the golden sets'
// tensor names: the transformer with a LoRA in each of its three layouts, the VAE both ways, and
// UMT5.
#include "engine/core/tensor_io.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;

class ForwardWanCli : public test::WanGoldenTest {
protected:
    // Runs `forward COMMAND ...` and returns its output file's tensors.
    std::map<std::string, at::Tensor> forward(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = {test::engine_path(), "forward"};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        argv.insert(argv.end(), {"--out", out_.string(), "--device", "cpu"});
        const test::ProcessResult result = test::run_process(argv);
        EXPECT_EQ(result.exit_code, 0) << result.err << result.out;
        return core::read_tensors(out_);
    }

    test::TemporaryDirectory directory_;
    fs::path out_ = directory_ / "out.safetensors";
};

TEST_F(ForwardWanCli, TheTransformerTakesALoRAInEveryLayout) {
    const fs::path lora = golden_ / "lora_wan";
    const auto outputs = test::read_golden(golden_, "lora_wan/outputs.safetensors");
    for (const char* file :
         {"pytorch_lora_weights.safetensors", "wan_original_format_lora.safetensors",
          "musubi_format_lora.safetensors"}) {
        const auto sample =
            forward({"transformer", "--model", (lora / "transformer").string(), "--inputs",
                     (lora / "inputs.safetensors").string(), "--lora", (lora / file).string()})
                .at("sample");
        const test::Difference difference = test::compare(sample, outputs.at("sample"));
        test::expect_within(std::string("lora_wan sample with ") + file, difference,
                            test::fp32_bound(difference));
    }
    const auto half =
        forward({"transformer", "--model", (lora / "transformer").string(), "--inputs",
                 (lora / "inputs.safetensors").string(), "--lora",
                 (lora / "musubi_format_lora.safetensors").string(), "--lora-scale", "0.5"})
            .at("sample");
    const test::Difference difference = test::compare(half, outputs.at("sample_scale_0_5"));
    test::expect_within("lora_wan sample_scale_0_5", difference, test::fp32_bound(difference));
}

TEST_F(ForwardWanCli, TheVaeEncodesAndDecodesAsTheGolden) {
    const fs::path vae = golden_ / "wan21_vae";
    const auto outputs = test::read_golden(golden_, "wan21_vae/outputs.safetensors");
    const auto encoded =
        forward({"vae-encode", "--model", (vae / "vae").string(), "--inputs",
                 (vae / "inputs.safetensors").string(), "--input-prefix", "main."});
    test::Difference difference =
        test::compare(encoded.at("latent_mean"), outputs.at("main.latent_mean"));
    test::expect_within("wan21_vae main.latent_mean", difference, test::fp32_bound(difference));
    // vae-encode's output decodes as it is (its latent_mean stands in for a latent).
    core::write_tensors(directory_ / "latent.safetensors",
                        {{"latent", outputs.at("main.latent_mean")}});
    const auto decoded = forward({"vae-decode", "--model", (vae / "vae").string(), "--inputs",
                                  (directory_ / "latent.safetensors").string()});
    difference = test::compare(decoded.at("decoded"), outputs.at("main.decoded"));
    test::expect_within("wan21_vae main.decoded", difference, test::fp32_bound(difference));
}

TEST_F(ForwardWanCli, AFolderOfNoFamilysClassIsRefusedByName) {
    const std::vector<std::string> argv = {
        test::engine_path(),
        "forward",
        "vae-encode",
        "--model",
        (golden_ / "wan21_transformer_t2v" / "transformer").string(),
        "--inputs",
        (golden_ / "wan21_vae" / "inputs.safetensors").string(),
        "--input-prefix",
        "main.",
        "--out",
        out_.string()};
    const test::ProcessResult result = test::run_process(argv);
    EXPECT_NE(result.exit_code, 0);
    EXPECT_NE(result.err.find("is not a VAE"), std::string::npos) << result.err;
}

} // namespace
} // namespace tuneframe
