// Frame-accurate seeking in every container/codec pair: after seek(n), read() returns the frame
// that shows n, whatever the codec reorders (B-frames) or the demuxer can seek to.
#include "media/video_reader.h"
#include "test_clips.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace tuneframe::media::test {
namespace {

class SeekTest : public ::testing::TestWithParam<ClipSpec> {
protected:
    std::string path() const { return clip_path(GetParam()); }
};

void expect_frame(VideoReader& reader, int64_t expected) {
    const std::optional<Frame> frame = reader.read();
    ASSERT_TRUE(frame.has_value()) << "no frame where " << expected << " was expected";
    EXPECT_EQ(frame->index, expected);
    EXPECT_EQ(read_pattern(*frame), expected);
}

TEST_P(SeekTest, ReadsEveryFrameInOrder) {
    VideoReader reader(path());
    for (int i = 0; i < kClipFrames; ++i) {
        expect_frame(reader, i);
    }
    EXPECT_FALSE(reader.read().has_value());
    EXPECT_EQ(reader.frame_count(), kClipFrames);
}

TEST_P(SeekTest, SeeksToMiddleAndSteps) {
    VideoReader reader(path());
    reader.seek(13);
    EXPECT_EQ(reader.position(), 13);
    expect_frame(reader, 13);
    expect_frame(reader, 14);
    EXPECT_EQ(reader.position(), 15);
}

TEST_P(SeekTest, SeeksToLastFrame) {
    VideoReader reader(path());
    reader.seek(kClipFrames - 1);
    expect_frame(reader, kClipFrames - 1);
    EXPECT_FALSE(reader.read().has_value());
}

TEST_P(SeekTest, SeeksBackwardsAfterTheEnd) {
    VideoReader reader(path());
    reader.seek(kClipFrames - 1);
    expect_frame(reader, kClipFrames - 1);
    EXPECT_FALSE(reader.read().has_value());
    reader.seek(kClipGop + 1);
    expect_frame(reader, kClipGop + 1);
    reader.seek(0);
    expect_frame(reader, 0);
}

TEST_P(SeekTest, SeeksToEveryFrameInRandomOrder) {
    std::vector<int> order(kClipFrames);
    for (int i = 0; i < kClipFrames; ++i) {
        order[i] = i;
    }
    std::shuffle(order.begin(), order.end(), std::mt19937(7));
    VideoReader reader(path());
    for (const int target : order) {
        SCOPED_TRACE("target " + std::to_string(target));
        reader.seek(target);
        expect_frame(reader, target);
    }
}

TEST_P(SeekTest, FrameStepsForwardWithoutLosingPlace) {
    VideoReader reader(path());
    reader.seek(2);
    expect_frame(reader, 2);
    reader.seek(3); // the next frame: no seek needed
    expect_frame(reader, 3);
    reader.seek(6); // same group of pictures: decodes on
    expect_frame(reader, 6);
}

TEST_P(SeekTest, OutOfRangeIsAnInvalidArgument) {
    VideoReader reader(path());
    try {
        reader.seek(kClipFrames);
        FAIL() << "seek past the end was accepted";
    } catch (const MediaError& error) {
        EXPECT_EQ(error.reason(), ErrorReason::InvalidArgument);
        EXPECT_NE(std::string(error.what()).find(path()), std::string::npos);
    }
    EXPECT_THROW(reader.seek(-1), MediaError);
}

INSTANTIATE_TEST_SUITE_P(Formats, SeekTest, ::testing::ValuesIn(format_specs()),
                         [](const auto& info) { return spec_test_name(info.param); });

} // namespace
} // namespace tuneframe::media::test
