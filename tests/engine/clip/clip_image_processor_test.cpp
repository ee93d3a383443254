// CLIPImageProcessor against the pixel_values of ../shared/golden-wan (clip_vision and the I2V
// pipeline's CLIP branch), its config, the crop's padding and bad images.
#include "engine/core/error.h"
#include "engine/core/json_file.h"
#include "engine/models/clip/clip_image_processor.h"
#include "tests/engine/transformer/golden_case.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models::clip {
namespace {

class CLIPProcessorGolden : public test::WanGoldenTest {};

// One uint8 step after normalisation is 1 / 255 / std, about 0.015.
void expect_same_pixels(const std::string& label, const at::Tensor& actual,
                        const at::Tensor& expected) {
    ASSERT_EQ(actual.scalar_type(), torch::kFloat32);
    const test::Difference difference = test::compare(actual, expected);
    test::expect_within(label, difference, 1e-6);
}

TEST_F(CLIPProcessorGolden, PixelValuesOfTheClipVisionCase) {
    const auto in = test::read_golden(golden_, "clip_vision/inputs.safetensors");
    const auto out = test::read_golden(golden_, "clip_vision/outputs.safetensors");
    const auto processor =
        CLIPImageProcessor::from_folder(golden_ / "clip_vision" / "image_processor");
    EXPECT_EQ(processor.config().shortest_edge, 32);
    EXPECT_EQ(processor.config().resample, PilResample::Bicubic);
    expect_same_pixels("clip_vision pixel_values", processor.preprocess(in.at("image")),
                       out.at("pixel_values"));
}

TEST_F(CLIPProcessorGolden, PixelValuesOfTheI2vPipeline) {
    const auto in = test::read_golden(golden_, "pipeline_wan21_i2v/inputs.safetensors");
    const auto out = test::read_golden(golden_, "pipeline_wan21_i2v/outputs.safetensors");
    const auto processor = CLIPImageProcessor::from_folder(golden_ / "pipeline_wan21_i2v" /
                                                           "pipeline" / "image_processor");
    expect_same_pixels("pipeline_wan21_i2v clip_pixel_values", processor.preprocess(in.at("image")),
                       out.at("clip_pixel_values"));
}

TEST(CLIPImageProcessor, ConfigRoundTripsAndReadsOlderForms) {
    CLIPImageProcessorConfig config;
    config.shortest_edge = 48;
    config.crop_height = config.crop_width = 40;
    const auto json = config.to_json();
    const auto back = CLIPImageProcessorConfig::from_json(json, "preprocessor_config.json");
    EXPECT_EQ(back.shortest_edge, 48);
    EXPECT_EQ(back.crop_height, 40);
    EXPECT_EQ(back.image_std, kOpenAIClipStd);

    const auto older = CLIPImageProcessorConfig::from_json(
        {{"size", 224}, {"crop_size", 200}, {"resample", 2}}, "preprocessor_config.json");
    EXPECT_EQ(older.shortest_edge, 224);
    EXPECT_EQ(older.crop_width, 200);
    EXPECT_EQ(older.resample, PilResample::Bilinear);

    const auto square = CLIPImageProcessorConfig::from_json(
        {{"size", {{"height", 20}, {"width", 30}}}, {"do_center_crop", false}}, "p.json");
    CLIPImageProcessor processor(square);
    const at::Tensor out = processor.preprocess(torch::full({7, 9, 3}, 128, torch::kUInt8));
    EXPECT_EQ(out.sizes(), (std::vector<std::int64_t>{1, 3, 20, 30}));
}

TEST(CLIPImageProcessor, ShortestEdgeSizesAndACropLargerThanTheImageIsZeroPadded) {
    CLIPImageProcessorConfig config;
    config.shortest_edge = 4;
    config.crop_height = 6;
    config.crop_width = 3;
    config.do_rescale = false;
    config.do_normalize = false;
    const CLIPImageProcessor processor(config);
    // 8 x 10 -> 4 x 5 (int(4 * 10 / 8)), then crop 6 x 3: rows padded by 1 above and below,
    // columns 1..3 kept (floor((5 - 3) / 2) = 1).
    const at::Tensor image = torch::full({8, 10, 3}, 90, torch::kUInt8);
    const at::Tensor out = processor.resize_and_crop(image);
    ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{6, 3, 3}));
    EXPECT_EQ(out[0].sum().item<std::int64_t>(), 0);
    EXPECT_EQ(out[5].sum().item<std::int64_t>(), 0);
    EXPECT_TRUE(torch::equal(out.slice(0, 1, 5), torch::full({4, 3, 3}, 90, torch::kUInt8)));
    // Portrait: the width is the short side.
    config.crop_height = config.crop_width = 4;
    EXPECT_EQ(
        CLIPImageProcessor(config).resize_and_crop(torch::zeros({9, 6, 3}, torch::kUInt8)).sizes(),
        (std::vector<std::int64_t>{4, 4, 3}));
}

TEST(CLIPImageProcessor, GreyAndRgbaAreConvertedToRgb) {
    CLIPImageProcessorConfig config;
    config.shortest_edge = config.crop_height = config.crop_width = 4;
    const CLIPImageProcessor processor(config);
    const at::Tensor grey = torch::arange(16, torch::kLong).to(torch::kUInt8).reshape({4, 4});
    const at::Tensor rgb = grey.unsqueeze(-1).expand({4, 4, 3}).contiguous();
    EXPECT_TRUE(torch::equal(processor.preprocess(grey), processor.preprocess(rgb)));
    const at::Tensor rgba = torch::cat({rgb, torch::full({4, 4, 1}, 7, torch::kUInt8)}, 2);
    EXPECT_TRUE(torch::equal(processor.preprocess(rgba), processor.preprocess(rgb)));
}

TEST(CLIPImageProcessor, AnImageOfTheWrongShapeOrTypeIsABadInput) {
    const CLIPImageProcessor processor(CLIPImageProcessorConfig{});
    for (const at::Tensor& image :
         {torch::zeros({3, 30, 40}, torch::kUInt8), torch::zeros({30, 40, 3}, torch::kFloat32),
          torch::zeros({1, 30, 40, 3}, torch::kUInt8), torch::zeros({0, 4, 3}, torch::kUInt8)}) {
        try {
            processor.preprocess(image);
            ADD_FAILURE() << "no error for " << image.sizes();
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            EXPECT_NE(std::string(error.what()).find("uint8 [height, width, 3]"),
                      std::string::npos);
        }
    }
}

TEST(CLIPImageProcessor, AFolderWithoutItsConfigOrWithABadOneIsABadInput) {
    test::TemporaryDirectory dir;
    EXPECT_THROW(CLIPImageProcessor::from_folder(dir.path()), core::Error);
    core::write_json_file(dir / "preprocessor_config.json", {{"image_std", {0.5, 0.0, 0.5}}});
    try {
        CLIPImageProcessor::from_folder(dir.path());
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("preprocessor_config.json"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::models::clip
