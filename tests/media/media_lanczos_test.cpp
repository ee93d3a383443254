// resize_lanczos against values worked out by hand from Pillow's fixed-point filter.
#include "media/lanczos_resize.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tuneframe::media {
namespace {

Frame make_frame(int width, int height, const std::vector<std::uint8_t>& gray) {
    Frame frame;
    frame.width = width;
    frame.height = height;
    for (std::uint8_t value : gray) {
        frame.rgb.insert(frame.rgb.end(), {value, value, value});
    }
    return frame;
}

TEST(LanczosResize, SameSizeIsAnExactCopy) {
    Frame frame = make_frame(3, 2, {0, 50, 100, 150, 200, 250});
    frame.rgb[1] = 7; // channels are independent
    const Frame out = resize_lanczos(frame, 3, 2);
    EXPECT_EQ(out.rgb, frame.rgb);
}

TEST(LanczosResize, HalvingTwoPixelsRoundsTheirMeanHalfUp) {
    // Two input pixels, symmetric about the output centre: equal weights of exactly 0.5, and
    // Pillow's rounding offset turns 15.5 into 16.
    const Frame out = resize_lanczos(make_frame(2, 1, {10, 21}), 1, 1);
    ASSERT_EQ(out.rgb.size(), 3u);
    EXPECT_EQ(out.rgb[0], 16);
    const Frame vertical = resize_lanczos(make_frame(1, 2, {10, 21}), 1, 1);
    EXPECT_EQ(vertical.rgb[0], 16);
}

TEST(LanczosResize, ConstantPicturesStayConstantAtAnySize) {
    const Frame frame = make_frame(5, 4, std::vector<std::uint8_t>(20, 137));
    for (auto [w, h] : {std::pair{2, 3}, {9, 7}, {1, 1}, {13, 2}}) {
        const Frame out = resize_lanczos(frame, w, h);
        ASSERT_EQ(out.rgb.size(), static_cast<std::size_t>(w * h * 3));
        for (std::uint8_t value : out.rgb) {
            EXPECT_EQ(value, 137) << w << "x" << h;
        }
    }
}

TEST(LanczosResize, UpscalingAnEdgeKeepsPillowsTruncatedBorderKernel) {
    // At the borders Pillow cuts the kernel at the picture's edge and renormalises what is
    // left. The last output pixel (centre 3.875 in input pixels) reads inputs 1..3 = 0, 255,
    // 255 with Lanczos weights 0.0303, -0.1473, 0.7642: 255 * 0.6169 / 0.6472 = 243.
    const Frame out = resize_lanczos(make_frame(4, 1, {0, 0, 255, 255}), 16, 1);
    std::vector<int> values;
    for (int x = 0; x < 16; ++x) {
        values.push_back(out.rgb[x * 3]);
    }
    EXPECT_EQ(values.back(), 243);
    EXPECT_EQ(values.front(), 12);
    for (int x = 6; x < 10; ++x) {
        EXPECT_LE(values[x], values[x + 1]) << x;
    }
    // The filter is symmetric: value(x) + value(15 - x) = 255 up to rounding.
    for (int x = 0; x < 8; ++x) {
        EXPECT_NEAR(values[x] + values[15 - x], 255, 1) << x;
    }
}

TEST(LanczosResize, RejectsEmptyFramesAndSizes) {
    EXPECT_THROW(resize_lanczos(Frame{}, 2, 2), std::invalid_argument);
    EXPECT_THROW(resize_lanczos(make_frame(2, 1, {1, 2}), 0, 2), std::invalid_argument);
}

} // namespace
} // namespace tuneframe::media
