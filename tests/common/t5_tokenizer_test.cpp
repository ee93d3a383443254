// T5Tokenizer against ../shared/golden/tokenizer (transformers' slow T5Tokenizer): ids exact.
#include "common/t5_tokenizer.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

namespace tuneframe::common {
namespace {

using Rows = std::vector<std::vector<std::int64_t>>;

Rows read_i64_rows(const core::SafetensorsFile& file, const std::string& name) {
    const core::TensorInfo& info = file.at(name);
    EXPECT_EQ(info.dtype, core::DType::I64) << name;
    EXPECT_EQ(info.shape.size(), 2u) << name;
    Rows rows(static_cast<std::size_t>(info.shape[0]),
              std::vector<std::int64_t>(static_cast<std::size_t>(info.shape[1])));
    const std::uint8_t* data = file.data(info);
    for (auto& row : rows) {
        std::memcpy(row.data(), data, row.size() * sizeof(std::int64_t));
        data += row.size() * sizeof(std::int64_t);
    }
    return rows;
}

class T5TokenizerGolden : public ::testing::Test {
protected:
    void SetUp() override {
        const auto golden = test::golden_dir();
        if (golden.empty()) {
            if (test::running_in_ci()) {
                FAIL() << "the golden sets (../shared/golden) are missing under CI";
            }
            GTEST_SKIP() << "no ../shared/golden";
        }
        case_dir_ = golden / "tokenizer";
        std::ifstream stream(case_dir_ / "prompts.json");
        prompts_ = nlohmann::json::parse(stream).at("prompts").get<std::vector<std::string>>();
        outputs_ = std::make_unique<core::SafetensorsFile>(case_dir_ / "outputs.safetensors");
    }

    std::filesystem::path case_dir_;
    std::vector<std::string> prompts_;
    std::unique_ptr<core::SafetensorsFile> outputs_;
};

TEST_F(T5TokenizerGolden, LegacyIdsAndMaskMatchTransformersExactly) {
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer");
    EXPECT_TRUE(tokenizer.legacy());
    EXPECT_EQ(tokenizer.size(), 228);
    EXPECT_EQ(tokenizer.sentencepiece_size(), 128);
    TokenBatch batch = tokenizer(prompts_, {24, Padding::MaxLength, true});
    EXPECT_EQ(batch.input_ids, read_i64_rows(*outputs_, "input_ids"));
    EXPECT_EQ(batch.attention_mask, read_i64_rows(*outputs_, "attention_mask"));
}

TEST_F(T5TokenizerGolden, NonLegacyIdsAndMaskMatchTransformersExactly) {
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer", false);
    EXPECT_FALSE(tokenizer.legacy());
    TokenBatch batch = tokenizer(prompts_, {24, Padding::MaxLength, true});
    EXPECT_EQ(batch.input_ids, read_i64_rows(*outputs_, "input_ids_nonlegacy"));
    EXPECT_EQ(batch.attention_mask, read_i64_rows(*outputs_, "attention_mask_nonlegacy"));
}

TEST_F(T5TokenizerGolden, UntruncatedLongestPaddingMatches) {
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer");
    TokenBatch batch = tokenizer(prompts_, {24, Padding::Longest, false});
    EXPECT_EQ(batch.input_ids, read_i64_rows(*outputs_, "input_ids_untruncated_longest"));
    EXPECT_EQ(tokenizer.count_tokens(prompts_[1]), 121u);
}

TEST_F(T5TokenizerGolden, PiecesOfTheGoldenPromptsMatch) {
    std::ifstream stream(case_dir_ / "prompts.json");
    const auto pieces = nlohmann::json::parse(stream).at("pieces");
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer");
    for (std::size_t i = 0; i < prompts_.size(); ++i) {
        std::vector<std::string> expected;
        for (const auto& piece : pieces[i]) {
            if (piece != "</s>" && piece != "<pad>") {
                expected.push_back(piece.get<std::string>());
            }
        }
        std::vector<std::string> actual;
        for (const Token& token : tokenizer.tokenize(prompts_[i])) {
            // transformers prints unknown pieces as <unk>; SentencePiece keeps their text.
            actual.push_back(token.id == tokenizer.unk_id() ? "<unk>" : token.piece);
        }
        actual.resize(std::min(actual.size(), expected.size())); // prompt 1 is truncated
        EXPECT_EQ(actual, expected) << prompts_[i];
    }
}

TEST_F(T5TokenizerGolden, EmptyPromptIsEosThenPadding) {
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer");
    TokenBatch batch = tokenizer({""}, {6, Padding::MaxLength, true});
    EXPECT_EQ(batch.input_ids[0], (std::vector<std::int64_t>{1, 0, 0, 0, 0, 0}));
    EXPECT_EQ(batch.attention_mask[0], (std::vector<std::int64_t>{1, 0, 0, 0, 0, 0}));
}

TEST_F(T5TokenizerGolden, SpecialTokensInTheTextAreSplitOffAndEosIsNotDoubled) {
    auto tokenizer = T5Tokenizer::from_folder(case_dir_ / "tokenizer");
    auto ids = tokenizer.encode_for_model("a cat</s>", 24, true);
    ASSERT_GE(ids.size(), 2u);
    EXPECT_EQ(ids.back(), tokenizer.eos_id());
    EXPECT_NE(ids[ids.size() - 2], tokenizer.eos_id());
    // <extra_id_0> eats the spaces on both sides.
    EXPECT_EQ(tokenizer.encode("shot <extra_id_0> of"), tokenizer.encode("shot<extra_id_0>of"));
}

TEST(T5Tokenizer, AMissingFolderNamesTheFileAndTheFix) {
    try {
        T5Tokenizer::from_folder("/nonexistent/tokenizer");
        FAIL() << "no error";
    } catch (const TokenizerError& error) {
        EXPECT_NE(std::string(error.what()).find("spiece.model"), std::string::npos);
        EXPECT_FALSE(error.hint().empty());
    }
}

} // namespace
} // namespace tuneframe::common
