// T5EncoderModel loading transformers' UMT5EncoderModel (../shared/golden-wan/umt5), its
// config and the tiny writer init-model uses for Wan pipelines.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/t5/t5_encoder.h"
#include "engine/models/t5/t5_init.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <sstream>

namespace tuneframe::models {
namespace {

class UMT5Golden : public test::WanGoldenTest {
protected:
    std::filesystem::path encoder_folder() const { return golden_ / "umt5" / "text_encoder"; }
    std::map<std::string, at::Tensor> inputs() const {
        return test::read_golden(golden_, "umt5/inputs.safetensors");
    }
    std::map<std::string, at::Tensor> outputs() const {
        return test::read_golden(golden_, "umt5/outputs.safetensors");
    }
};

TEST_F(UMT5Golden, ConfigSaysEveryBlockHasItsOwnPositionTable) {
    const auto path = encoder_folder() / "config.json";
    const T5Config config = T5Config::from_json(core::read_json_file(path), path.string());
    EXPECT_TRUE(config.position_bias_per_layer);
    EXPECT_EQ(config.model_type(), "umt5");
    T5EncoderModel model(config, WeightsPlacement{});
    std::size_t tables = 0;
    for (const auto& item : model->named_parameters()) {
        tables += item.key().find("relative_attention_bias") != std::string::npos;
    }
    EXPECT_EQ(tables, static_cast<std::size_t>(config.num_layers));
}

TEST_F(UMT5Golden, LastHiddenStateWithTheMask) {
    torch::NoGradGuard no_grad;
    const auto in = inputs();
    const at::Tensor expected = outputs().at("last_hidden_state");
    const at::Tensor actual =
        load_t5_encoder(encoder_folder())(in.at("input_ids"), in.at("attention_mask"));
    const test::Difference difference = test::compare(actual, expected);
    test::expect_within("umt5 last_hidden_state fp32", difference, test::fp32_bound(difference));
}

// Block 0's table alone (T5's sharing) gives other numbers: the per-layer tables are used.
TEST_F(UMT5Golden, SharingBlockZerosTableWouldBeWrong) {
    torch::NoGradGuard no_grad;
    const auto in = inputs();
    const at::Tensor expected = outputs().at("last_hidden_state");
    auto model = load_t5_encoder(encoder_folder());
    const auto* first = model->named_parameters().find(
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    ASSERT_NE(first, nullptr);
    model
        ->named_parameters()["encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"]
        .copy_(*first);
    const test::Difference difference =
        test::compare(model(in.at("input_ids"), in.at("attention_mask")), expected);
    EXPECT_GT(difference.max_abs, 100 * test::fp32_bound(difference));
}

// A bf16 run that follows transformers op for op (residual stream, attention scores and the
// position bias in bf16) is 3.9% of max|ref| from the fp32 reference on this tiny random model
// with LibTorch 1.13 and 5.1% with 2.6 (whose CPU bf16 GEMMs round their outputs differently);
// rounding the weights alone to bf16 costs 1.5%, the bf16 arithmetic the rest. So the bound
// here is 6%, not the architecture's 2%, as T5's bf16 test (tests/engine/t5) allows 3% for the
// same reason; computing in float32 would be closer to fp32 but no longer transformers' bf16.
// A wrong layer (a shared position table, a missing norm) is 100x the fp32 bound or more.
double umt5_bf16_bound(const test::Difference& difference) {
    return 6e-2 * difference.max_ref;
}

TEST_F(UMT5Golden, Bf16OpForOpStaysWithinSixPercent) {
    torch::NoGradGuard no_grad;
    const auto in = inputs();
    const at::Tensor expected = outputs().at("last_hidden_state");
    const at::Tensor actual = load_t5_encoder(encoder_folder(), {torch::kBFloat16, torch::kCPU})(
        in.at("input_ids"), in.at("attention_mask"));
    EXPECT_EQ(actual.scalar_type(), torch::kBFloat16);
    const test::Difference difference = test::compare(actual, expected);
    test::expect_within("umt5 last_hidden_state bf16", difference, umt5_bf16_bound(difference));
}

TEST(UMT5Config, RoundTripsAndReadsAConfigWithoutModelType) {
    T5Config config = tiny_umt5_config(16, 128);
    const nlohmann::json json = config.to_json();
    EXPECT_EQ(json.at("model_type"), "umt5");
    EXPECT_EQ(json.at("architectures"), nlohmann::json::array({"UMT5EncoderModel"}));
    EXPECT_TRUE(T5Config::from_json(json, "config.json").position_bias_per_layer);
    nlohmann::json bare = json;
    bare.erase("model_type");
    EXPECT_TRUE(T5Config::from_json(bare, "config.json").position_bias_per_layer);
    bare.erase("architectures");
    EXPECT_FALSE(T5Config::from_json(bare, "config.json").position_bias_per_layer);
    EXPECT_FALSE(T5Config::from_json(tiny_t5_config(16, 128).to_json(), "config.json")
                     .position_bias_per_layer);
}

TEST(UMT5Config, AnotherModelTypeIsABadInputNamingTheFile) {
    nlohmann::json json = tiny_umt5_config(16, 128).to_json();
    json["model_type"] = "clip_vision_model";
    try {
        T5Config::from_json(json, "/x/text_encoder/config.json");
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        const std::string message = error.what();
        EXPECT_NE(message.find("/x/text_encoder/config.json"), std::string::npos) << message;
        EXPECT_NE(message.find("clip_vision_model"), std::string::npos) << message;
        EXPECT_NE(error.hint().find("text_encoder/"), std::string::npos);
    }
}

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    return bytes.str();
}

TEST(UMT5Init, TinyTextComponentsAreDeterministicAndLoad) {
    test::TemporaryDirectory dir;
    for (const char* run : {"a", "b"}) {
        write_tiny_umt5_text_components(dir / run / "text_encoder", dir / run / "tokenizer", 32,
                                        512, 7);
    }
    for (const char* file : {"text_encoder/model.safetensors", "text_encoder/config.json",
                             "tokenizer/spiece.model", "tokenizer/tokenizer_config.json"}) {
        EXPECT_EQ(file_bytes(dir / "a" / file), file_bytes(dir / "b" / file)) << file;
    }
    const auto tensors = core::read_tensors(dir / "a" / "text_encoder" / "model.safetensors");
    EXPECT_TRUE(
        tensors.count("encoder.block.1.layer.0.SelfAttention.relative_attention_bias.weight"));
    EXPECT_TRUE(
        torch::equal(tensors.at("shared.weight"), tensors.at("encoder.embed_tokens.weight")));
    auto model = load_t5_encoder(dir / "a" / "text_encoder");
    EXPECT_TRUE(model->config().position_bias_per_layer);
    torch::NoGradGuard no_grad;
    const at::Tensor out = model(torch::tensor({{5, 9, 1, 0}}, torch::kLong),
                                 torch::tensor({{1, 1, 1, 0}}, torch::kLong));
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 4, 32}));
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
}

} // namespace
} // namespace tuneframe::models
