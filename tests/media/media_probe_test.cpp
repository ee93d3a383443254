// probe(): container, codec, sizes, rotation, frame rate and frame count of clips we made.
#include "media/probe.h"
#include "media/video_reader.h"
#include "test_clips.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

namespace tuneframe::media::test {
namespace {

class ProbeTest : public ::testing::TestWithParam<ClipSpec> {};

TEST_P(ProbeTest, ReportsWhatWasWritten) {
    const ClipSpec& spec = GetParam();
    const ProbeInfo info = probe(clip_path(spec));
    EXPECT_EQ(info.path, clip_path(spec));
    EXPECT_FALSE(info.format_name.empty());
    EXPECT_FALSE(info.codec_name.empty());
    EXPECT_FALSE(info.pixel_format.empty());
    EXPECT_EQ(info.coded_width, spec.width);
    EXPECT_EQ(info.coded_height, spec.height);
    EXPECT_EQ(info.display_width, spec.width);
    EXPECT_EQ(info.display_height, spec.height);
    EXPECT_EQ(info.rotation_degrees, 0);
    EXPECT_NEAR(info.fps, 25.0, 0.01);
    EXPECT_NEAR(info.frame_rate.value(), info.fps, 1e-9);
    // Without a count in the container, duration and count are estimated from timestamps;
    // MPEG program streams lack them on some frames, so allow a group of pictures.
    const double tolerance = info.frame_count_exact ? 0.0 : kClipGop;
    EXPECT_NEAR(info.duration_seconds, kClipFrames / 25.0, (tolerance + 1) / 25.0);
    EXPECT_NEAR(static_cast<double>(info.frame_count), kClipFrames, tolerance);
    EXPECT_FALSE(info.has_audio);
    EXPECT_FALSE(info.is_image);
}

INSTANTIATE_TEST_SUITE_P(Formats, ProbeTest, ::testing::ValuesIn(format_specs()),
                         [](const auto& info) { return spec_test_name(info.param); });

ClipSpec clip_named(const std::string& name) {
    for (const ClipSpec& spec : format_specs()) {
        if (spec.name == name) {
            return spec;
        }
    }
    throw std::runtime_error("no clip " + name);
}

TEST(Probe, NamesContainerAndCodec) {
    const ProbeInfo mp4 = probe(clip_path(clip_named("h264.mp4")));
    EXPECT_NE(mp4.format_name.find("mp4"), std::string::npos);
    EXPECT_EQ(mp4.codec_name, "h264");
    EXPECT_EQ(mp4.pixel_format, "yuv420p");
    EXPECT_TRUE(mp4.frame_count_exact);

    const ProbeInfo webm = probe(clip_path(clip_named("vp9.webm")));
    EXPECT_NE(webm.format_name.find("webm"), std::string::npos);
    EXPECT_EQ(webm.codec_name, "vp9");

    EXPECT_EQ(probe(clip_path(clip_named("mpeg2.mpg"))).codec_name, "mpeg2video");
    EXPECT_EQ(probe(clip_path(clip_named("anim.gif"))).codec_name, "gif");
}

TEST(Probe, ReaderCountsExactlyWhereTheContainerDoesNot) {
    VideoReader reader(clip_path(clip_named("vp9.webm")));
    EXPECT_FALSE(reader.info().frame_count_exact);
    EXPECT_EQ(reader.frame_count(), kClipFrames);
}

TEST(Probe, ACancelStopsProbingAndReading) {
    const std::string path = clip_path(clip_named("h264.mp4"));
    std::atomic<bool> cancel{true};
    try {
        probe(path, &cancel);
        FAIL() << "a cancelled probe returned";
    } catch (const MediaError& error) {
        EXPECT_EQ(error.reason(), ErrorReason::Io);
        EXPECT_NE(std::string(error.what()).find("cancelled"), std::string::npos) << error.what();
    }

    cancel = false;
    ReaderOptions options;
    options.cancel_requested = &cancel;
    VideoReader reader(path, options);
    EXPECT_TRUE(reader.read());
    // Counting frames demuxes the whole file on a second handle; a cancel stops it too.
    cancel = true;
    EXPECT_THROW(reader.frame_count(), MediaError);
}

TEST(Probe, TreatsAnImageAsAOneFrameClip) {
    ClipSpec spec;
    spec.name = "still.png";
    spec.frames = 1;
    spec.options.container = "image2";
    spec.options.codec = "png";
    const std::string path = clip_path(spec);

    const ProbeInfo info = probe(path);
    EXPECT_TRUE(info.is_image);
    EXPECT_EQ(info.codec_name, "png");
    EXPECT_EQ(info.frame_count, 1);
    EXPECT_TRUE(info.frame_count_exact);
    EXPECT_EQ(info.display_width, kClipWidth);

    VideoReader reader(path);
    EXPECT_EQ(reader.frame_count(), 1);
    const std::optional<Frame> frame = reader.read();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(read_pattern(*frame), 0);
    EXPECT_FALSE(reader.read().has_value());
}

} // namespace
} // namespace tuneframe::media::test
