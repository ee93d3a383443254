// Rotated clips, as phones record them: a portrait scene stored landscape plus a display
// matrix. probe() reports the turn and the displayed size; decoded frames come out upright.
#include "media/probe.h"
#include "media/thumbnail.h"
#include "media/video_reader.h"
#include "test_clips.h"

#include <gtest/gtest.h>

namespace tuneframe::media::test {
namespace {

// Upright portrait scene: red top-left, green top-right, blue bottom-left, grey elsewhere.
Frame upright_scene() {
    Frame frame;
    frame.width = kClipHeight; // portrait: 48 x 64
    frame.height = kClipWidth;
    frame.rgb.assign(static_cast<size_t>(frame.width) * frame.height * 3, 128);
    auto paint = [&](int x0, int y0, uint8_t r, uint8_t g, uint8_t b) {
        for (int y = y0; y < y0 + 16; ++y) {
            for (int x = x0; x < x0 + 16; ++x) {
                uint8_t* pixel = &frame.rgb[(static_cast<size_t>(y) * frame.width + x) * 3];
                pixel[0] = r;
                pixel[1] = g;
                pixel[2] = b;
            }
        }
    };
    paint(0, 0, 255, 0, 0);
    paint(frame.width - 16, 0, 0, 255, 0);
    paint(0, frame.height - 16, 0, 0, 255);
    return frame;
}

// The stored picture for a clip shown turned clockwise by degrees: the upright scene turned
// back (counter-clockwise) by the same amount.
Frame stored_picture(int degrees) {
    Frame frame = upright_scene();
    for (int turned = 0; turned < (360 - degrees) % 360; turned += 90) {
        frame = turn_clockwise(frame);
    }
    return frame;
}

std::string rotated_clip(int degrees) {
    const std::string path =
        (scratch_folder("rotated") / ("rotated" + std::to_string(degrees) + ".mp4")).string();
    const Frame stored = stored_picture(degrees);
    WriterOptions options;
    options.rotation_degrees = degrees;
    VideoWriter writer(path, stored.width, stored.height, options);
    for (int i = 0; i < 4; ++i) {
        writer.write(stored);
    }
    writer.finish();
    return path;
}

void expect_near(const Colour& colour, double r, double g, double b) {
    EXPECT_NEAR(colour.r, r, 40);
    EXPECT_NEAR(colour.g, g, 40);
    EXPECT_NEAR(colour.b, b, 40);
}

void expect_upright(const Frame& frame) {
    ASSERT_LT(frame.width, frame.height);
    const int corner = frame.width / 6; // inside the 16/48 corner patch at any scale
    const int radius = std::max(0, corner / 2 - 1);
    expect_near(mean_colour(frame, corner / 2, corner / 2, radius), 255, 0, 0);
    expect_near(mean_colour(frame, frame.width - 1 - corner / 2, corner / 2, radius), 0, 255, 0);
    expect_near(mean_colour(frame, corner / 2, frame.height - 1 - corner / 2, radius), 0, 0, 255);
}

class RotationTest : public ::testing::TestWithParam<int> {};

TEST_P(RotationTest, ProbeReportsTurnAndDisplayedSize) {
    const int degrees = GetParam();
    const ProbeInfo info = probe(rotated_clip(degrees));
    EXPECT_EQ(info.rotation_degrees, degrees);
    const bool quarter = degrees % 180 != 0;
    EXPECT_EQ(info.coded_width, quarter ? kClipWidth : kClipHeight);
    EXPECT_EQ(info.display_width, kClipHeight);
    EXPECT_EQ(info.display_height, kClipWidth);
}

TEST_P(RotationTest, FramesComeOutUpright) {
    VideoReader reader(rotated_clip(GetParam()));
    const std::optional<Frame> frame = reader.read();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->width, kClipHeight);
    EXPECT_EQ(frame->height, kClipWidth);
    expect_upright(*frame);
}

TEST_P(RotationTest, ResizedFramesComeOutUpright) {
    VideoReader reader(rotated_clip(GetParam()));
    const std::vector<Frame> frames = reader.decode_range(1, 2, {24, 32, ResizeMode::Cover});
    ASSERT_EQ(frames.size(), 2U);
    EXPECT_EQ(frames[0].width, 24);
    EXPECT_EQ(frames[0].height, 32);
    expect_upright(frames[0]);
}

TEST_P(RotationTest, ThumbnailComesOutUpright) {
    const Frame frame = thumbnail(rotated_clip(GetParam()), 0.0, 32);
    EXPECT_EQ(frame.width, 24);
    EXPECT_EQ(frame.height, 32);
    expect_upright(frame);
}

INSTANTIATE_TEST_SUITE_P(Degrees, RotationTest, ::testing::Values(90, 180, 270));

TEST(Rotation, CanBeLeftUnapplied) {
    VideoReader reader(rotated_clip(90));
    DecodeOptions stored;
    stored.apply_rotation = false;
    reader.set_output(stored);
    const std::optional<Frame> frame = reader.read();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->width, kClipWidth);
    EXPECT_EQ(frame->height, kClipHeight);
    // Stored turned counter-clockwise: the scene's red top-left is now bottom-left.
    expect_near(mean_colour(*frame, 4, frame->height - 5, 3), 255, 0, 0);
}

} // namespace
} // namespace tuneframe::media::test
