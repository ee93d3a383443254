// VideoWriter: atomic files, option checks with clear errors, faststart, colour round trip.
#include "media/probe.h"
#include "media/video_reader.h"
#include "media/video_writer.h"
#include "test_clips.h"

extern "C" {
#include <libavformat/avformat.h>
}

#include <gtest/gtest.h>

#include <algorithm>

namespace tuneframe::media::test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> folder_entries(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

void write_frames(VideoWriter& writer, int count, int width = kClipWidth,
                  int height = kClipHeight) {
    for (int i = 0; i < count; ++i) {
        writer.write(pattern_frame(i, width, height));
    }
}

ErrorReason writer_error(const std::string& path, int width, int height,
                         const WriterOptions& options, std::string* message = nullptr) {
    try {
        VideoWriter writer(path, width, height, options);
        write_frames(writer, 2, width, height);
        writer.finish();
    } catch (const MediaError& error) {
        if (message != nullptr) {
            *message = error.what();
        }
        return error.reason();
    }
    return ErrorReason::None;
}

TEST(Writer, NothingAppearsBeforeFinish) {
    const fs::path folder = scratch_folder("atomic");
    const fs::path path = folder / "out.mp4";
    VideoWriter writer(path.string(), kClipWidth, kClipHeight);
    write_frames(writer, 5);
    EXPECT_FALSE(fs::exists(path));
    const std::vector<std::string> during = folder_entries(folder);
    ASSERT_EQ(during.size(), 1U);
    EXPECT_EQ(during[0].rfind("out.mp4.tmp-", 0), 0U) << during[0];
    writer.finish();
    EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.mp4"});
    EXPECT_EQ(writer.frames_written(), 5);
    EXPECT_EQ(probe(path.string()).frame_count, 5);
}

TEST(Writer, AnUnfinishedWriterLeavesNoFile) {
    const fs::path folder = scratch_folder("abandoned");
    {
        VideoWriter writer((folder / "out.mp4").string(), kClipWidth, kClipHeight);
        write_frames(writer, 5);
    }
    {
        VideoWriter writer((folder / "out.webm").string(), kClipWidth, kClipHeight);
        write_frames(writer, 1);
        EXPECT_THROW(writer.write(pattern_frame(0, 8, 8)), MediaError);
    }
    EXPECT_TRUE(folder_entries(folder).empty());
}

TEST(Writer, FinishReplacesAnExistingFile) {
    const fs::path folder = scratch_folder("replace");
    const fs::path path = folder / "out.mkv";
    write_file(path, "old contents");
    VideoWriter writer(path.string(), kClipWidth, kClipHeight);
    write_frames(writer, 3);
    EXPECT_EQ(read_file(path), "old contents");
    writer.finish();
    EXPECT_EQ(probe(path.string()).codec_name, "h264");
    EXPECT_EQ(folder_entries(folder), std::vector<std::string>{"out.mkv"});
}

TEST(Writer, FinishWithoutFramesFailsAndLeavesNoFile) {
    const fs::path folder = scratch_folder("empty");
    {
        VideoWriter writer((folder / "out.mp4").string(), kClipWidth, kClipHeight);
        EXPECT_THROW(writer.finish(), MediaError);
    }
    EXPECT_TRUE(folder_entries(folder).empty());
}

TEST(Writer, FaststartPutsTheIndexFirst) {
    const fs::path folder = scratch_folder("faststart");
    for (const bool faststart : {true, false}) {
        const fs::path path = folder / (faststart ? "fast.mp4" : "slow.mp4");
        WriterOptions options;
        options.faststart = faststart;
        VideoWriter writer(path.string(), kClipWidth, kClipHeight, options);
        write_frames(writer, 3);
        writer.finish();
        const std::string bytes = read_file(path);
        EXPECT_EQ(bytes.find("moov") < bytes.find("mdat"), faststart);
    }
}

TEST(Writer, RefusesOddSizesForHalfResolutionChroma) {
    const fs::path folder = scratch_folder("odd");
    std::string message;
    EXPECT_EQ(writer_error((folder / "odd.mp4").string(), 33, 17, {}, &message),
              ErrorReason::InvalidArgument);
    EXPECT_NE(message.find("34x18"), std::string::npos) << message;
    EXPECT_NE(message.find("odd.mp4"), std::string::npos) << message;
    EXPECT_TRUE(folder_entries(folder).empty());
}

TEST(Writer, ExplainsBadOptions) {
    const fs::path folder = scratch_folder("options");
    WriterOptions no_such_codec;
    no_such_codec.codec = "no-such-codec";
    EXPECT_EQ(writer_error((folder / "a.mp4").string(), 64, 48, no_such_codec),
              ErrorReason::Unsupported);

    WriterOptions rotated_mkv;
    rotated_mkv.rotation_degrees = 90;
    EXPECT_EQ(writer_error((folder / "b.mkv").string(), 64, 48, rotated_mkv),
              ErrorReason::Unsupported);

    WriterOptions skewed;
    skewed.rotation_degrees = 45;
    EXPECT_EQ(writer_error((folder / "c.mp4").string(), 64, 48, skewed),
              ErrorReason::InvalidArgument);

    WriterOptions gif_crf;
    gif_crf.crf = 20;
    EXPECT_EQ(writer_error((folder / "d.gif").string(), 64, 48, gif_crf),
              ErrorReason::InvalidArgument);

    WriterOptions h264_in_webm;
    h264_in_webm.codec = "libx264";
    EXPECT_EQ(writer_error((folder / "e.webm").string(), 64, 48, h264_in_webm),
              ErrorReason::InvalidArgument);

    WriterOptions bad_pixels;
    bad_pixels.pixel_format = "not-a-format";
    EXPECT_EQ(writer_error((folder / "f.mp4").string(), 64, 48, bad_pixels),
              ErrorReason::InvalidArgument);

    WriterOptions zero_fps;
    zero_fps.fps = {0, 1};
    EXPECT_EQ(writer_error((folder / "g.mp4").string(), 64, 48, zero_fps),
              ErrorReason::InvalidArgument);

    EXPECT_EQ(writer_error((folder / "h.unknownext").string(), 64, 48, {}),
              ErrorReason::InvalidArgument);
    EXPECT_EQ(writer_error((folder / "i.mp4").string(), 0, 48, {}), ErrorReason::InvalidArgument);
    EXPECT_TRUE(folder_entries(folder).empty());
}

TEST(Writer, MissingFolderIsAnIoError) {
    const fs::path path = scratch_folder("missing") / "no" / "such" / "out.mp4";
    EXPECT_EQ(writer_error(path.string(), 64, 48, {}), ErrorReason::Io);
}

TEST(Writer, KeepsColours) {
    const fs::path path = scratch_folder("colour") / "colour.mp4";
    Frame solid;
    solid.width = kClipWidth;
    solid.height = kClipHeight;
    for (int i = 0; i < kClipWidth * kClipHeight; ++i) {
        solid.rgb.insert(solid.rgb.end(), {200, 60, 110});
    }
    VideoWriter writer(path.string(), kClipWidth, kClipHeight);
    writer.write(solid);
    writer.write(solid);
    writer.finish();
    VideoReader reader(path.string());
    const Colour colour = mean_colour(*reader.read(), 32, 24, 8);
    EXPECT_NEAR(colour.r, 200, 6);
    EXPECT_NEAR(colour.g, 60, 6);
    EXPECT_NEAR(colour.b, 110, 6);
}

TEST(Writer, OddSizesWorkWhereTheCodecTakesThem) {
    for (const ClipSpec& spec : format_specs()) {
        if (spec.width % 2 == 0) {
            continue;
        }
        SCOPED_TRACE(spec.name);
        const ProbeInfo info = probe(clip_path(spec));
        EXPECT_EQ(info.coded_width, 33);
        EXPECT_EQ(info.coded_height, 17);
        VideoReader reader(clip_path(spec));
        const std::optional<Frame> frame = reader.read();
        ASSERT_TRUE(frame.has_value());
        EXPECT_EQ(frame->width, 33);
        EXPECT_EQ(frame->height, 17);
    }
}

// The seek tests only prove B-frame handling if the H.264 clips really reorder frames.
TEST(Writer, H264ClipsHaveBFrames) {
    ClipSpec spec = format_specs().front();
    ASSERT_EQ(spec.name, "h264.mp4");
    AVFormatContext* format = nullptr;
    ASSERT_EQ(avformat_open_input(&format, clip_path(spec).c_str(), nullptr, nullptr), 0);
    AVPacket* packet = av_packet_alloc();
    int reordered = 0;
    int64_t previous_pts = AV_NOPTS_VALUE;
    while (av_read_frame(format, packet) >= 0) {
        // A B-frame is decoded after a later frame it refers to: pts goes back.
        reordered += previous_pts != AV_NOPTS_VALUE && packet->pts < previous_pts ? 1 : 0;
        previous_pts = packet->pts;
        av_packet_unref(packet);
    }
    av_packet_free(&packet);
    avformat_close_input(&format);
    EXPECT_GT(reordered, 0);
}

} // namespace
} // namespace tuneframe::media::test
