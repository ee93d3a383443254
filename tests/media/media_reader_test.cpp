// VideoReader: decode_range in each resize mode, timestamps, and how ranges are checked.
#include "media/video_reader.h"
#include "test_clips.h"

#include <gtest/gtest.h>

#include <thread>

namespace tuneframe::media::test {
namespace {

ClipSpec h264_clip() {
    ClipSpec spec;
    spec.name = "reader.mp4";
    spec.options.gop_size = kClipGop;
    return spec;
}

TEST(Reader, ReportsTimestampsInSeconds) {
    VideoReader reader(clip_path(h264_clip()));
    for (int i = 0; i < 5; ++i) {
        const std::optional<Frame> frame = reader.read();
        ASSERT_TRUE(frame.has_value());
        EXPECT_NEAR(frame->pts_seconds, i / 25.0, 1e-3);
        EXPECT_EQ(frame->rgb.size(), static_cast<size_t>(3 * frame->width * frame->height));
    }
}

TEST(Reader, StretchGivesExactlyTheBox) {
    VideoReader reader(clip_path(h264_clip()));
    const std::vector<Frame> frames = reader.decode_range(10, 3, {32, 32, ResizeMode::Stretch});
    ASSERT_EQ(frames.size(), 3U);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(frames[i].width, 32);
        EXPECT_EQ(frames[i].height, 32);
        EXPECT_EQ(frames[i].index, 10 + i);
        EXPECT_EQ(read_pattern(frames[i]), 10 + i);
    }
}

TEST(Reader, FitKeepsAspectInsideTheBox) {
    VideoReader reader(clip_path(h264_clip()));
    const std::vector<Frame> wide = reader.decode_range(5, 1, {32, 32, ResizeMode::Fit});
    EXPECT_EQ(wide[0].width, 32);
    EXPECT_EQ(wide[0].height, 24);
    EXPECT_EQ(read_pattern(wide[0]), 5);
    const std::vector<Frame> tall = reader.decode_range(6, 1, {100, 30, ResizeMode::Fit});
    EXPECT_EQ(tall[0].width, 40);
    EXPECT_EQ(tall[0].height, 30);
    EXPECT_EQ(read_pattern(tall[0]), 6);
}

TEST(Reader, CoverFillsTheBoxAndCropsTheCentre) {
    VideoReader reader(clip_path(h264_clip()));
    const std::vector<Frame> frames = reader.decode_range(21, 2, {32, 32, ResizeMode::Cover});
    ASSERT_EQ(frames.size(), 2U);
    EXPECT_EQ(frames[0].width, 32);
    EXPECT_EQ(frames[0].height, 32);
    // 64x48 covers 32x32 at 43x32; the centre crop starts 5 pixels in.
    EXPECT_EQ(read_pattern_cropped(frames[0], 43, 32, 5, 0), 21);
    EXPECT_EQ(read_pattern_cropped(frames[1], 43, 32, 5, 0), 22);
    // Enlarging works the same way.
    const std::vector<Frame> large = reader.decode_range(3, 1, {96, 96, ResizeMode::Cover});
    EXPECT_EQ(large[0].width, 96);
    EXPECT_EQ(read_pattern_cropped(large[0], 128, 96, 16, 0), 3);
}

TEST(Reader, OneSideZeroFollowsTheOther) {
    VideoReader reader(clip_path(h264_clip()));
    const std::vector<Frame> frames = reader.decode_range(0, 1, {32, 0, ResizeMode::Cover});
    EXPECT_EQ(frames[0].width, 32);
    EXPECT_EQ(frames[0].height, 24);
    const std::vector<Frame> native = reader.decode_range(1, 1, {});
    EXPECT_EQ(native[0].width, kClipWidth);
    EXPECT_EQ(native[0].height, kClipHeight);
}

TEST(Reader, ReadContinuesAfterARange) {
    VideoReader reader(clip_path(h264_clip()));
    reader.decode_range(4, 3, {16, 12, ResizeMode::Stretch});
    EXPECT_EQ(reader.position(), 7);
    const std::optional<Frame> next = reader.read();
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(next->index, 7);
    EXPECT_EQ(next->width, kClipWidth); // read() keeps its own output options
    EXPECT_EQ(read_pattern(*next), 7);
}

TEST(Reader, SetOutputAppliesToRead) {
    VideoReader reader(clip_path(h264_clip()));
    reader.set_output({16, 0, ResizeMode::Fit});
    const std::optional<Frame> frame = reader.read();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->width, 16);
    EXPECT_EQ(frame->height, 12);
}

TEST(Reader, RangesOutsideTheClipAreInvalidArguments) {
    VideoReader reader(clip_path(h264_clip()));
    for (const auto& [first, count] :
         std::vector<std::pair<int64_t, int64_t>>{{20, 10}, {-1, 2}, {0, -1}, {kClipFrames, 1}}) {
        try {
            reader.decode_range(first, count, {});
            ADD_FAILURE() << "range " << first << "+" << count << " was accepted";
        } catch (const MediaError& error) {
            EXPECT_EQ(error.reason(), ErrorReason::InvalidArgument);
            EXPECT_NE(std::string(error.what()).find("24 frames"), std::string::npos)
                << error.what();
        }
    }
    EXPECT_TRUE(reader.decode_range(3, 0, {}).empty());
    EXPECT_THROW(reader.decode_range(0, 1, {-4, 10, ResizeMode::Fit}), MediaError);
}

TEST(Reader, WholeClipInOneRange) {
    VideoReader reader(clip_path(h264_clip()));
    const std::vector<Frame> frames = reader.decode_range(0, kClipFrames, {32, 24});
    ASSERT_EQ(frames.size(), static_cast<size_t>(kClipFrames));
    for (int i = 0; i < kClipFrames; ++i) {
        EXPECT_EQ(read_pattern(frames[i]), i);
    }
    EXPECT_FALSE(reader.read().has_value());
}

TEST(Reader, IsMovable) {
    VideoReader first(clip_path(h264_clip()));
    first.seek(9);
    VideoReader second = std::move(first);
    const std::optional<Frame> frame = second.read();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(read_pattern(*frame), 9);
}

// The studio's player and its thumbnailer each run a reader on their own thread.
TEST(Reader, ReadersOnSeveralThreadsAreIndependent) {
    const std::string path = clip_path(h264_clip());
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            VideoReader reader(path, {1, std::chrono::milliseconds(10000)});
            reader.seek(t);
            while (const std::optional<Frame> frame = reader.read()) {
                mismatches[t] += read_pattern(*frame) == frame->index ? 0 : 1;
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

// The stall guard is wired: with no time at all, the first read is interrupted.
TEST(Reader, StalledReadsEndInAnIoError) {
    try {
        VideoReader reader(clip_path(h264_clip()), {0, std::chrono::milliseconds(0)});
        FAIL() << "a zero stall timeout did not interrupt anything";
    } catch (const MediaError& error) {
        EXPECT_EQ(error.reason(), ErrorReason::Io) << error.what();
    }
}

} // namespace
} // namespace tuneframe::media::test
