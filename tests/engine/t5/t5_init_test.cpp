// The tiny text components init-model writes load back and work together.
#include "common/t5_tokenizer.h"
#include "engine/models/t5/caption_corpus.h"
#include "engine/models/t5/t5_init.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

namespace tuneframe::models {
namespace {

TEST(TinyTextComponents, LoadBackAndEncodeACaption) {
    test::TemporaryDirectory dir;
    const auto written =
        write_tiny_text_components(dir / "text_encoder", dir / "tokenizer", 32, 64, 7);
    auto tokenizer = common::T5Tokenizer::from_folder(dir / "tokenizer");
    EXPECT_EQ(tokenizer.size(), written.size);
    EXPECT_EQ(written.size, written.sentencepiece_size + 100);
    EXPECT_EQ(tokenizer.model_max_length(), 64);
    EXPECT_TRUE(tokenizer.legacy());

    const auto batch =
        tokenizer({"A small red circle bounces from left to right. The camera pans left."},
                  {64, common::Padding::MaxLength, true});
    const auto& ids = batch.input_ids[0];
    ASSERT_EQ(ids.size(), 64u);
    const auto eos = std::find(ids.begin(), ids.end(), tokenizer.eos_id());
    ASSERT_NE(eos, ids.end());
    EXPECT_GT(eos - ids.begin(), 5);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), tokenizer.unk_id()), 0);
    EXPECT_EQ(tokenizer.encode("<extra_id_0>"), std::vector<std::int64_t>{written.size - 1});

    torch::NoGradGuard no_grad;
    auto t5 = load_t5_encoder(dir / "text_encoder");
    EXPECT_GE(t5->config().vocab_size, written.size);
    const at::Tensor out = t5(torch::tensor(ids).unsqueeze(0));
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 64, 32}));
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
    EXPECT_GT(out.std().item<double>(), 0.1);
}

TEST(TinyTextComponents, AreTheSameForTheSameSeed) {
    test::TemporaryDirectory dir;
    write_tiny_text_components(dir / "a" / "text_encoder", dir / "a" / "tokenizer", 32, 64, 3);
    write_tiny_text_components(dir / "b" / "text_encoder", dir / "b" / "tokenizer", 32, 64, 3);
    for (const char* file : {"tokenizer/spiece.model", "tokenizer/tokenizer_config.json",
                             "text_encoder/model.safetensors", "text_encoder/config.json"}) {
        EXPECT_EQ(test::read_bytes(dir / "a" / file), test::read_bytes(dir / "b" / file)) << file;
    }
}

TEST(CaptionCorpus, HoldsTwoHundredDistinctCaptions) {
    const auto captions = caption_corpus();
    EXPECT_EQ(captions.size(), 200u);
    EXPECT_EQ(std::set<std::string>(captions.begin(), captions.end()).size(), captions.size());
}

} // namespace
} // namespace tuneframe::models
