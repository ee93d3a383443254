// thumbnail(): fast, keyframe-based previews that fit a box and never enlarge.
#include "media/thumbnail.h"
#include "test_clips.h"

#include <gtest/gtest.h>

namespace tuneframe::media::test {
namespace {

class ThumbnailTest : public ::testing::TestWithParam<ClipSpec> {};

TEST_P(ThumbnailTest, TakesAFrameAtOrBeforeTheTime) {
    const ClipSpec& spec = GetParam();
    const Frame frame = thumbnail(clip_path(spec), 0.5, 32);
    EXPECT_LE(frame.width, 32);
    EXPECT_LE(frame.height, 32);
    EXPECT_EQ(std::max(frame.width, frame.height), 32);
    const int shown = read_pattern(frame);
    EXPECT_GE(shown, 0);
    EXPECT_LE(shown, 13); // frame 12.5 or the keyframe before it
    EXPECT_LE(frame.pts_seconds, 0.5 + 1e-6);
}

TEST_P(ThumbnailTest, ClampsTimesOutsideTheClip) {
    const std::string path = clip_path(GetParam());
    EXPECT_EQ(read_pattern(thumbnail(path, -3.0, 0)), 0);
    const Frame late = thumbnail(path, 1000.0, 0);
    EXPECT_GE(read_pattern(late), 0);
    EXPECT_EQ(late.width, GetParam().width);
}

INSTANTIATE_TEST_SUITE_P(Formats, ThumbnailTest, ::testing::ValuesIn(format_specs()),
                         [](const auto& info) { return spec_test_name(info.param); });

ClipSpec h264_clip() {
    ClipSpec spec;
    spec.name = "thumbnail.mp4";
    spec.options.gop_size = kClipGop;
    return spec;
}

TEST(Thumbnail, ShowsTheKeyframeBeforeTheTime) {
    // Frame 12.5 lies in the group of pictures that starts at frame 8.
    const Frame frame = thumbnail(clip_path(h264_clip()), 0.5, 32);
    EXPECT_EQ(frame.width, 32);
    EXPECT_EQ(frame.height, 24);
    EXPECT_LE(frame.index, 12);
    EXPECT_EQ(read_pattern(frame), frame.index);
}

TEST(Thumbnail, NeverEnlarges) {
    const Frame frame = thumbnail(clip_path(h264_clip()), 0.0, 1000);
    EXPECT_EQ(frame.width, kClipWidth);
    EXPECT_EQ(frame.height, kClipHeight);
    EXPECT_EQ(read_pattern(frame), 0);
}

} // namespace
} // namespace tuneframe::media::test
