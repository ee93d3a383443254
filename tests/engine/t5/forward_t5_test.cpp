// `tuneframe-engine forward t5 / tokenize` reproduce ../shared/golden/t5 and tokenizer from
// the command line.
#include "engine/core/tensor_io.h"
#include "tests/engine/t5/golden_compare.h"
#include "tests/support/process_runner.h"

#include <gtest/gtest.h>

namespace tuneframe {
namespace {

using test::close_to;

at::Tensor run_t5(const std::filesystem::path& golden, const std::filesystem::path& out,
                  std::vector<std::string> flags) {
    std::vector<std::string> argv = {test::engine_path(),
                                     "forward",
                                     "t5",
                                     "--model",
                                     (golden / "t5" / "text_encoder").string(),
                                     "--inputs",
                                     (golden / "t5" / "inputs.safetensors").string(),
                                     "--out",
                                     out.string(),
                                     "--device",
                                     "cpu"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto result = test::run_process(argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return core::read_tensors(out).at("last_hidden_state");
}

TEST(ForwardT5Cli, MaskedAndUnmaskedRunsMatchTheGolden) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    test::TemporaryDirectory dir;
    const auto expected = core::read_tensors(golden / "t5" / "outputs.safetensors");
    const at::Tensor& masked = expected.at("last_hidden_state");
    const at::Tensor& unmasked = expected.at("last_hidden_state_nomask");
    EXPECT_TRUE(close_to("cli t5 last_hidden_state", run_t5(golden, dir / "a.safetensors", {}),
                         masked, test::fp32_tolerance(masked)));
    EXPECT_TRUE(close_to("cli t5 last_hidden_state_nomask",
                         run_t5(golden, dir / "b.safetensors", {"--no-mask"}), unmasked,
                         test::fp32_tolerance(unmasked)));
}

std::map<std::string, at::Tensor> tokenize(const std::filesystem::path& golden,
                                           const std::filesystem::path& prompts,
                                           const std::filesystem::path& out,
                                           std::vector<std::string> flags) {
    std::vector<std::string> argv = {test::engine_path(),
                                     "forward",
                                     "tokenize",
                                     "--model",
                                     (golden / "tokenizer" / "tokenizer").string(),
                                     "--prompts",
                                     prompts.string(),
                                     "--out",
                                     out.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    auto result = test::run_process(argv);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return core::read_tensors(out);
}

TEST(ForwardTokenizeCli, LegacyNonLegacyAndUntruncatedIdsAreExact) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    test::TemporaryDirectory dir;
    const auto expected = core::read_tensors(golden / "tokenizer" / "outputs.safetensors");
    const auto prompts = golden / "tokenizer" / "prompts.json"; // {"prompts": [...], ...}

    auto legacy = tokenize(golden, prompts, dir / "a.safetensors", {"--max-length", "24"});
    EXPECT_TRUE(torch::equal(legacy.at("input_ids"), expected.at("input_ids")));
    EXPECT_TRUE(torch::equal(legacy.at("attention_mask"), expected.at("attention_mask")));

    auto non_legacy =
        tokenize(golden, prompts, dir / "b.safetensors", {"--max-length", "24", "--no-legacy"});
    EXPECT_TRUE(torch::equal(non_legacy.at("input_ids"), expected.at("input_ids_nonlegacy")));
    EXPECT_TRUE(
        torch::equal(non_legacy.at("attention_mask"), expected.at("attention_mask_nonlegacy")));

    auto longest = tokenize(golden, prompts, dir / "c.safetensors",
                            {"--padding", "longest", "--no-truncation"});
    EXPECT_TRUE(
        torch::equal(longest.at("input_ids"), expected.at("input_ids_untruncated_longest")));
}

TEST(ForwardTokenizeCli, APlainArrayOfPromptsPadsTo226ByDefault) {
    TUNEFRAME_REQUIRE_GOLDEN(golden);
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "prompts.json", R"(["A red fox jumps.", ""])");
    auto out = tokenize(golden, dir / "prompts.json", dir / "out.safetensors", {});
    const at::Tensor& ids = out.at("input_ids");
    EXPECT_EQ(ids.sizes(), (std::vector<std::int64_t>{2, 226}));
    EXPECT_EQ(ids.scalar_type(), torch::kLong);
    EXPECT_EQ(ids[1][0].item<std::int64_t>(), 1);
    EXPECT_EQ(out.at("attention_mask")[1].sum().item<std::int64_t>(), 1);
}

} // namespace
} // namespace tuneframe
