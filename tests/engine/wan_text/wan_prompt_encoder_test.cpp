// WanPromptEncoder against ../shared/golden-wan: the umt5 case's five prompts (cleaning, ids,
// mask, zero-padded embeddings) and the prompt embeddings the two Wan 2.1 pipelines recorded.
#include "common/prompt_clean.h"
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/wan/wan_prompt_encoder.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models::wan {
namespace {

constexpr int kGoldenLength = 16; // the umt5 case's max_sequence_length

class WanPromptGolden : public test::WanGoldenTest {
protected:
    std::filesystem::path umt5() const { return golden_ / "umt5"; }
    std::vector<std::string> prompts() const {
        return core::read_json_file(umt5() / "prompts.json")
            .at("prompts")
            .get<std::vector<std::string>>();
    }
    WanPromptEncoder encoder(WeightsPlacement placement = {}) const {
        return WanPromptEncoder(umt5() / "tokenizer", umt5() / "text_encoder", placement);
    }
};

TEST_F(WanPromptGolden, CleanedPromptsMatch) {
    const auto cleaned = core::read_json_file(umt5() / "prompts.json").at("cleaned");
    const auto raw = prompts();
    ASSERT_EQ(raw.size(), cleaned.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        EXPECT_EQ(common::wan_prompt_clean(raw[i]), cleaned[i].get<std::string>()) << i;
    }
}

TEST_F(WanPromptGolden, IdsAndMaskMatch) {
    const auto in = test::read_golden(golden_, "umt5/inputs.safetensors");
    const PromptTokens tokens = encoder().tokens(prompts(), kGoldenLength);
    EXPECT_TRUE(torch::equal(tokens.input_ids, in.at("input_ids"))) << tokens.input_ids;
    EXPECT_TRUE(torch::equal(tokens.attention_mask, in.at("attention_mask")))
        << tokens.attention_mask;

    const auto out = test::read_golden(golden_, "umt5/outputs.safetensors");
    EXPECT_TRUE(torch::equal(tokens.attention_mask.sum(1), out.at("seq_lens")));
    // Untruncated, padded to the longest prompt.
    const auto raw = prompts();
    std::vector<std::string> cleaned;
    for (const auto& prompt : raw) {
        cleaned.push_back(common::wan_prompt_clean(prompt));
    }
    common::TokenizeOptions options;
    options.padding = common::Padding::Longest;
    options.truncation = false;
    const auto batch = encoder().tokenizer()(cleaned, options);
    const at::Tensor& longest = out.at("input_ids_untruncated_longest");
    ASSERT_EQ(batch.input_ids.size(), static_cast<std::size_t>(longest.size(0)));
    for (std::size_t i = 0; i < batch.input_ids.size(); ++i) {
        EXPECT_TRUE(torch::equal(torch::tensor(batch.input_ids[i], torch::kLong),
                                 longest[static_cast<std::int64_t>(i)]))
            << i;
    }
}

TEST_F(WanPromptGolden, PromptEmbedsAreZeroPastEachPrompt) {
    const auto out = test::read_golden(golden_, "umt5/outputs.safetensors");
    WanPromptEncoder prompt_encoder = encoder();
    const at::Tensor embeds = prompt_encoder.encode(prompts(), kGoldenLength);
    const test::Difference difference = test::compare(embeds, out.at("prompt_embeds"));
    test::expect_within("wan prompt_embeds fp32", difference, test::fp32_bound(difference));
    EXPECT_EQ(embeds[3].slice(0, 1).abs().max().item<double>(), 0.0); // "" is </s> alone

    // num_videos_per_prompt = 2 repeats each prompt's rows in place.
    const at::Tensor first_two = embeds.slice(0, 0, 2).repeat_interleave(2, 0);
    const test::Difference repeated =
        test::compare(first_two, out.at("prompt_embeds_first2_num_videos_2"));
    test::expect_within("wan prompt_embeds x2", repeated, test::fp32_bound(repeated));

    // One prompt at a time gives its row of the batch.
    for (std::size_t i = 0; i < prompts().size(); ++i) {
        const at::Tensor alone = prompt_encoder.encode(prompts()[i], kGoldenLength);
        EXPECT_EQ(alone.sizes(), (std::vector<std::int64_t>{1, kGoldenLength, 32}));
        const test::Difference row =
            test::compare(alone[0], out.at("prompt_embeds")[static_cast<std::int64_t>(i)]);
        test::expect_within("wan prompt_embeds row " + std::to_string(i), row,
                            test::fp32_bound(row));
    }
}

// 6%: see umt5_encoder_test.cpp for why the bf16 text encoder is not within 2%.
TEST_F(WanPromptGolden, Bf16WithinSixPercentAndReleaseReloads) {
    const auto out = test::read_golden(golden_, "umt5/outputs.safetensors");
    WanPromptEncoder prompt_encoder = encoder({torch::kBFloat16, torch::kCPU});
    const at::Tensor first = prompt_encoder.encode(prompts(), kGoldenLength);
    EXPECT_EQ(first.scalar_type(), torch::kBFloat16);
    const test::Difference difference = test::compare(first, out.at("prompt_embeds"));
    test::expect_within("wan prompt_embeds bf16", difference, 6e-2 * difference.max_ref);
    prompt_encoder.release();
    EXPECT_TRUE(torch::equal(prompt_encoder.encode(prompts(), kGoldenLength), first));
}

// The pipelines' own tokenizer and text encoder, as saved under pipeline/: the negative prompt
// first, as the recorded ids are.
void check_pipeline(const std::filesystem::path& golden, const std::string& name) {
    const auto folder = golden / name;
    const auto call = core::read_json_file(folder / "config.json").at("call");
    const int length = call.at("max_sequence_length").get<int>();
    const std::vector<std::string> prompts = {call.at("negative_prompt").get<std::string>(),
                                              call.at("prompt").get<std::string>()};
    const auto in = test::read_golden(golden, name + "/inputs.safetensors");
    const auto out = test::read_golden(golden, name + "/outputs.safetensors");
    WanPromptEncoder encoder(folder / "pipeline" / "tokenizer",
                             folder / "pipeline" / "text_encoder", {});
    const PromptTokens tokens = encoder.tokens(prompts, length);
    EXPECT_TRUE(torch::equal(tokens.input_ids, in.at("text_input_ids_negative_positive"))) << name;
    EXPECT_TRUE(torch::equal(tokens.attention_mask, in.at("text_attention_mask_negative_positive")))
        << name;
    const at::Tensor embeds = encoder.encode(prompts, length);
    for (const auto& [row, tensor] :
         {std::pair{0, "negative_prompt_embeds"}, std::pair{1, "prompt_embeds"}}) {
        const test::Difference difference =
            test::compare(embeds.slice(0, row, row + 1), out.at(tensor));
        test::expect_within(name + " " + tensor, difference, test::fp32_bound(difference));
    }
}

TEST_F(WanPromptGolden, PipelineWan21T2vPromptEmbeds) {
    check_pipeline(golden_, "pipeline_wan21_t2v");
}

TEST_F(WanPromptGolden, PipelineWan21I2vPromptEmbedsAt512Tokens) {
    check_pipeline(golden_, "pipeline_wan21_i2v");
}

TEST(WanPromptEncoder, ATokenizerFolderWithoutSpieceModelIsABadInput) {
    test::TemporaryDirectory dir;
    std::filesystem::create_directories(dir / "tokenizer");
    try {
        WanPromptEncoder encoder(dir / "tokenizer", dir / "text_encoder", {});
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("spiece.model"), std::string::npos);
        EXPECT_NE(error.hint().find("tokenizer/"), std::string::npos);
    }
}

TEST_F(WanPromptGolden, ATextEncoderFolderOfAnotherModelIsABadInputOnFirstUse) {
    test::TemporaryDirectory dir;
    auto config = core::read_json_file(umt5() / "text_encoder" / "config.json");
    config["model_type"] = "bert";
    std::filesystem::create_directories(dir / "text_encoder");
    core::write_json_file(dir / "text_encoder" / "config.json", config);
    WanPromptEncoder encoder(umt5() / "tokenizer", dir / "text_encoder", {});
    try {
        encoder.encode("a fox", kGoldenLength);
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("config.json"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::models::wan
