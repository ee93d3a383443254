// pil_resize against Pillow's Image.resize on a patterned RGB image: sizes up, down, one axis,
// a single pixel, every filter. The expected sums came from Pillow (9.4; Resample.c has not
// changed since) on the same pattern: the byte sum, and the sum weighted by (index % 251 + 1),
// which any single-step difference changes.
#include "engine/core/error.h"
#include "engine/models/clip/pil_resample.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::models::clip {
namespace {

at::Tensor pattern(std::int64_t height, std::int64_t width) {
    at::Tensor image = torch::empty({height, width, 3}, torch::kUInt8);
    auto access = image.accessor<std::uint8_t, 3>();
    for (std::int64_t y = 0; y < height; ++y) {
        for (std::int64_t x = 0; x < width; ++x) {
            for (std::int64_t c = 0; c < 3; ++c) {
                access[y][x][c] =
                    static_cast<std::uint8_t>((x * 37 + y * 91 + c * 53 + x * y * 7) % 256);
            }
        }
    }
    return image;
}

struct Case {
    std::int64_t height, width, out_width, out_height;
    int filter;
    std::int64_t sum, weighted;
};

TEST(PilResize, MatchesPillowByteForByte) {
    const Case cases[] = {
        {30, 40, 42, 32, 3, 514757, 64877387}, // the clip_vision golden's resize
        {7, 5, 2, 3, 3, 2339, 22206},          {64, 48, 17, 23, 3, 149445, 17912373},
        {1, 1, 4, 4, 3, 2544, 64024},          {5, 9, 4, 5, 3, 7799, 242228}, // width only
        {40, 56, 44, 32, 3, 537930, 67449950}, {13, 11, 5, 7, 2, 13542, 718137},
        {13, 11, 5, 7, 1, 13528, 716645},      {13, 11, 5, 7, 4, 13516, 719421},
        {13, 11, 5, 7, 5, 13509, 717761},      {13, 11, 29, 31, 1, 347047, 42881958},
    };
    for (const Case& c : cases) {
        const at::Tensor out = pil_resize(pattern(c.height, c.width), c.out_width, c.out_height,
                                          static_cast<PilResample>(c.filter));
        ASSERT_EQ(out.sizes(), (std::vector<std::int64_t>{c.out_height, c.out_width, 3}));
        const at::Tensor values = out.reshape({-1}).to(torch::kLong);
        const at::Tensor weights = torch::arange(values.numel(), torch::kLong) % 251 + 1;
        const std::string label = std::to_string(c.height) + "x" + std::to_string(c.width) +
                                  " -> " + std::to_string(c.out_height) + "x" +
                                  std::to_string(c.out_width) + " filter " +
                                  std::to_string(c.filter);
        EXPECT_EQ(values.sum().item<std::int64_t>(), c.sum) << label;
        EXPECT_EQ((values * weights).sum().item<std::int64_t>(), c.weighted) << label;
    }
}

TEST(PilResize, SameSizeIsACopyAndAFlatImageStaysFlat) {
    const at::Tensor image = pattern(6, 4);
    const at::Tensor same = pil_resize(image, 4, 6, PilResample::Bicubic);
    EXPECT_TRUE(torch::equal(same, image));
    EXPECT_NE(same.data_ptr(), image.data_ptr());
    const at::Tensor flat = torch::full({9, 7, 3}, 200, torch::kUInt8);
    EXPECT_TRUE(torch::equal(pil_resize(flat, 3, 20, PilResample::Bicubic),
                             torch::full({20, 3, 3}, 200, torch::kUInt8)));
}

TEST(PilResize, BadInputAndNearestAreClearErrors) {
    EXPECT_THROW(pil_resize(torch::zeros({4, 4, 3}), 2, 2, PilResample::Bicubic), core::Error);
    EXPECT_THROW(pil_resize(pattern(4, 4), 0, 2, PilResample::Bicubic), core::Error);
    try {
        pil_resize(pattern(4, 4), 2, 2, PilResample::Nearest);
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Unsupported);
    }
}

} // namespace
} // namespace tuneframe::models::clip
