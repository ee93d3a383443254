// CLIPVisionModelWithProjection against ../shared/golden-wan/clip_vision (every hidden state,
// the penultimate one Wan uses, last_hidden_state, image_embeds) and the I2V pipeline's image
// embeddings; loading rules, bf16, bad input and the tiny writer.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/core/tensor_io.h"
#include "engine/models/clip/clip_init.h"
#include "engine/models/clip/clip_vision_model.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fstream>
#include <sstream>

namespace tuneframe::models::clip {
namespace {

class CLIPVisionGolden : public test::WanGoldenTest {
protected:
    std::filesystem::path encoder_folder() const {
        return golden_ / "clip_vision" / "image_encoder";
    }
    std::map<std::string, at::Tensor> outputs() const {
        return test::read_golden(golden_, "clip_vision/outputs.safetensors");
    }
};

TEST_F(CLIPVisionGolden, EveryHiddenStateAndTheProjection) {
    torch::NoGradGuard no_grad;
    const auto out = outputs();
    auto model = load_clip_vision_model(encoder_folder());
    EXPECT_EQ(model->config().hidden_act, "gelu");
    const CLIPVisionOutput result = model(out.at("pixel_values"));
    ASSERT_EQ(result.hidden_states.size(), 4u);
    for (std::size_t i = 0; i < result.hidden_states.size(); ++i) {
        const std::string name = "hidden_states." + std::to_string(i);
        const test::Difference difference = test::compare(result.hidden_states[i], out.at(name));
        test::expect_within("clip " + name, difference, test::fp32_bound(difference));
    }
    for (const auto& [tensor, name] :
         {std::pair{result.penultimate_hidden_state(), "penultimate_hidden_state"},
          std::pair{result.last_hidden_state, "last_hidden_state"},
          std::pair{result.image_embeds, "image_embeds"}}) {
        const test::Difference difference = test::compare(tensor, out.at(name));
        test::expect_within(std::string("clip ") + name, difference, test::fp32_bound(difference));
    }
    EXPECT_TRUE(torch::equal(model->encode_image(out.at("pixel_values")),
                             result.penultimate_hidden_state()));
}

TEST_F(CLIPVisionGolden, Bf16WithinTwoPercent) {
    torch::NoGradGuard no_grad;
    const auto out = outputs();
    auto model = load_clip_vision_model(encoder_folder(), {torch::kBFloat16, torch::kCPU});
    const CLIPVisionOutput result = model(out.at("pixel_values"));
    EXPECT_EQ(result.last_hidden_state.scalar_type(), torch::kBFloat16);
    for (const auto& [tensor, name] :
         {std::pair{result.penultimate_hidden_state(), "penultimate_hidden_state"},
          std::pair{result.image_embeds, "image_embeds"}}) {
        const test::Difference difference = test::compare(tensor, out.at(name));
        test::expect_within(std::string("clip bf16 ") + name, difference,
                            test::bf16_bound(difference));
    }
}

TEST_F(CLIPVisionGolden, TheI2vPipelinesImageEmbeddingsFromItsImage) {
    torch::NoGradGuard no_grad;
    const auto folder = golden_ / "pipeline_wan21_i2v";
    const auto in = test::read_golden(golden_, "pipeline_wan21_i2v/inputs.safetensors");
    const auto out = test::read_golden(golden_, "pipeline_wan21_i2v/outputs.safetensors");
    const auto processor = CLIPImageProcessor::from_folder(folder / "pipeline" / "image_processor");
    auto model = load_clip_vision_model(folder / "pipeline" / "image_encoder");
    const at::Tensor embeds = model->encode_image(processor.preprocess(in.at("image")));
    const test::Difference difference = test::compare(embeds, out.at("image_embeds"));
    test::expect_within("pipeline_wan21_i2v image_embeds", difference,
                        test::fp32_bound(difference));
}

TEST_F(CLIPVisionGolden, AVisionModelWithoutProjectionLoadsToo) {
    torch::NoGradGuard no_grad;
    test::TemporaryDirectory dir;
    auto config = core::read_json_file(encoder_folder() / "config.json");
    config["architectures"] = {"CLIPVisionModel"};
    core::write_json_file(dir / "config.json", config);
    auto tensors = core::read_tensors(encoder_folder() / "model.safetensors");
    tensors.erase("visual_projection.weight");
    core::write_tensors(dir / "model.safetensors",
                        core::NamedTensors(tensors.begin(), tensors.end()));
    auto model = load_clip_vision_model(dir.path());
    const auto out = outputs();
    const CLIPVisionOutput result = model(out.at("pixel_values"));
    EXPECT_FALSE(result.image_embeds.defined());
    EXPECT_TRUE(torch::allclose(result.penultimate_hidden_state(),
                                out.at("penultimate_hidden_state"), 1e-4, 1e-4));
}

TEST_F(CLIPVisionGolden, PixelValuesOfTheWrongSizeAreABadInput) {
    auto model = load_clip_vision_model(encoder_folder());
    for (const at::Tensor& pixels : {torch::zeros({1, 3, 24, 32}), torch::zeros({3, 32, 32}),
                                     torch::zeros({1, 3, 32, 32}, torch::kUInt8)}) {
        try {
            model(pixels);
            ADD_FAILURE() << "no error for " << pixels.sizes();
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            EXPECT_NE(error.hint().find("preprocessor_config.json"), std::string::npos);
        }
    }
}

TEST(CLIPVisionLoading, AFolderOfAnotherModelOrWithoutConfigIsABadInputNamingIt) {
    test::TemporaryDirectory dir;
    try {
        load_clip_vision_model(dir.path());
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find(dir.path().string()), std::string::npos);
    }
    core::write_json_file(dir / "config.json", {{"model_type", "umt5"}});
    try {
        load_clip_vision_model(dir.path());
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("config.json"), std::string::npos);
        EXPECT_NE(std::string(error.what()).find("umt5"), std::string::npos);
        EXPECT_NE(error.hint().find("image_encoder/"), std::string::npos);
    }
}

TEST(CLIPVisionConfig, ReadsAWholeClipConfigsVisionPart) {
    const nlohmann::json json = {{"model_type", "clip"},
                                 {"projection_dim", 1024},
                                 {"vision_config",
                                  {{"hidden_size", 40},
                                   {"num_attention_heads", 4},
                                   {"image_size", 28},
                                   {"patch_size", 14},
                                   {"projection_dim", 8}}}};
    const CLIPVisionConfig config = CLIPVisionConfig::from_json(json, "config.json");
    EXPECT_EQ(config.hidden_size, 40);
    EXPECT_EQ(config.projection_dim, 8);
    EXPECT_EQ(config.num_positions(), 5);
    EXPECT_EQ(config.hidden_act, "quick_gelu");
    nlohmann::json bad = json;
    bad["vision_config"]["patch_size"] = 5;
    EXPECT_THROW(CLIPVisionConfig::from_json(bad, "config.json"), core::Error);
}

TEST(CLIPActivation, QuickGeluAndTheTanhForms) {
    const at::Tensor x = torch::linspace(-3, 3, 13);
    EXPECT_TRUE(torch::allclose(clip_activation("quick_gelu", x), x * torch::sigmoid(1.702 * x)));
    EXPECT_TRUE(torch::allclose(clip_activation("gelu_new", x),
                                clip_activation("gelu_pytorch_tanh", x), 1e-6, 1e-6));
    EXPECT_FALSE(torch::allclose(clip_activation("gelu", x), clip_activation("quick_gelu", x)));
}

std::string file_bytes(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    return bytes.str();
}

TEST(CLIPInit, TinyImageComponentsAreDeterministicAndLoad) {
    torch::NoGradGuard no_grad;
    test::TemporaryDirectory dir;
    for (const char* run : {"a", "b"}) {
        write_tiny_image_components(dir / run / "image_encoder", dir / run / "image_processor", 20,
                                    32, 11);
    }
    for (const char* file : {"image_encoder/model.safetensors", "image_encoder/config.json",
                             "image_processor/preprocessor_config.json"}) {
        EXPECT_EQ(file_bytes(dir / "a" / file), file_bytes(dir / "b" / file)) << file;
    }
    const auto config = core::read_json_file(dir / "a" / "image_encoder" / "config.json");
    EXPECT_EQ(config.at("architectures"), nlohmann::json::array({"CLIPVisionModelWithProjection"}));
    EXPECT_EQ(config.at("model_type"), "clip_vision_model");
    auto model = load_clip_vision_model(dir / "a" / "image_encoder");
    const auto processor = CLIPImageProcessor::from_folder(dir / "a" / "image_processor");
    const at::Tensor image = torch::randint(0, 256, {30, 45, 3}, torch::kLong).to(torch::kUInt8);
    const CLIPVisionOutput result = model(processor.preprocess(image));
    EXPECT_EQ(result.penultimate_hidden_state().sizes(), (std::vector<std::int64_t>{1, 17, 20}));
    EXPECT_TRUE(torch::isfinite(result.image_embeds).all().item<bool>());
    EXPECT_GT(result.last_hidden_state.std().item<double>(), 0.1);
    EXPECT_THROW(write_tiny_image_components(dir / "c", dir / "d", 20, 30, 1), core::Error);
}

} // namespace
} // namespace tuneframe::models::clip
