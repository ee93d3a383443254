// Files that are not (whole) videos: each ends in a MediaError naming the file and a reason,
// never a crash or a hang, whether opened by probe(), VideoReader or thumbnail().
#include "media/frame_check.h"
#include "media/probe.h"
#include "media/thumbnail.h"
#include "media/video_reader.h"
#include "test_clips.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sys/stat.h>

namespace tuneframe::media::test {
namespace {

namespace fs = std::filesystem;

std::string random_bytes(size_t size, unsigned seed) {
    std::mt19937 generator(seed);
    std::string bytes(size, '\0');
    for (char& c : bytes) {
        c = static_cast<char>(generator() & 0xff);
    }
    return bytes;
}

// Every entry point must refuse the file with the same reason.
void expect_refused(const std::string& path, std::initializer_list<ErrorReason> reasons) {
    const auto check = [&](const char* entry, const auto& call) {
        try {
            call();
            ADD_FAILURE() << entry << " accepted " << path;
        } catch (const MediaError& error) {
            EXPECT_NE(std::find(reasons.begin(), reasons.end(), error.reason()), reasons.end())
                << entry << ": " << to_string(error.reason()) << ": " << error.what();
            EXPECT_EQ(error.path(), path);
            EXPECT_NE(std::string(error.what()).find(path), std::string::npos);
            EXPECT_FALSE(error.hint().empty());
            EXPECT_EQ(std::string(error.what()).back(), '.') << error.what();
        }
    };
    check("probe", [&] { probe(path); });
    check("VideoReader", [&] { VideoReader reader(path); });
    check("thumbnail", [&] { thumbnail(path, 0.0, 64); });
}

ClipSpec source_clip(bool faststart) {
    ClipSpec spec;
    spec.name = faststart ? "whole-faststart.mp4" : "whole-moov-at-end.mp4";
    spec.options.gop_size = kClipGop;
    spec.options.faststart = faststart;
    spec.options.crf = 12;
    spec.noise = 40;
    return spec;
}

fs::path first_half_of(const std::string& source, const std::string& name) {
    const std::string bytes = read_file(source);
    const fs::path path = scratch_folder("truncated") / name;
    write_file(path, bytes.substr(0, bytes.size() / 2));
    return path;
}

TEST(BadFiles, ZeroBytesIsEmpty) {
    const fs::path path = scratch_folder("bad") / "empty.mp4";
    write_file(path, "");
    expect_refused(path.string(), {ErrorReason::Empty});
}

TEST(BadFiles, TextRenamedMp4IsNotAVideo) {
    const fs::path path = scratch_folder("bad") / "notes.mp4";
    write_file(path, "These are my shooting notes.\nScene 1: the beach at dawn.\n");
    expect_refused(path.string(), {ErrorReason::NotAVideo});
}

TEST(BadFiles, MissingFileIsNotFound) {
    const fs::path path = scratch_folder("bad") / "gone.mp4";
    expect_refused(path.string(), {ErrorReason::NotFound});
}

TEST(BadFiles, FolderIsNotAVideo) {
    const fs::path path = scratch_folder("bad") / "clips.mp4";
    fs::create_directories(path);
    expect_refused(path.string(), {ErrorReason::NotAVideo});
}

TEST(BadFiles, PipeIsRefusedWithoutBlocking) {
    const fs::path path = scratch_folder("bad") / "pipe.mp4";
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    expect_refused(path.string(), {ErrorReason::InvalidArgument});
}

TEST(BadFiles, RandomBytesAreRefused) {
    for (const char* name : {"noise.mp4", "noise.mkv", "noise.bin"}) {
        const fs::path path = scratch_folder("bad") / name;
        write_file(path, random_bytes(64 * 1024, 1234));
        expect_refused(path.string(), {ErrorReason::NotAVideo, ErrorReason::Corrupt});
    }
}

TEST(BadFiles, Mp4WithoutItsMoovAtomIsCorrupt) {
    const fs::path path = first_half_of(clip_path(source_clip(false)), "no-moov.mp4");
    expect_refused(path.string(), {ErrorReason::Corrupt});
}

TEST(BadFiles, Mp4HeaderAloneIsCorrupt) {
    const std::string bytes = read_file(clip_path(source_clip(false)));
    const fs::path path = scratch_folder("bad") / "header-only.mp4";
    write_file(path, bytes.substr(0, 64));
    expect_refused(path.string(), {ErrorReason::Corrupt});
}

// Decision: a file cut short keeps what it has. probe() reports the container's count,
// read() returns every frame that still decodes, and asking for the lost ones is Corrupt.
TEST(BadFiles, TruncatedMp4GivesWhatItHolds) {
    const fs::path path = first_half_of(clip_path(source_clip(true)), "half.mp4");
    const ProbeInfo info = probe(path.string());
    EXPECT_EQ(info.frame_count, kClipFrames);
    EXPECT_TRUE(info.frame_count_exact);

    VideoReader reader(path.string());
    int frames = 0;
    while (const std::optional<Frame> frame = reader.read()) {
        EXPECT_EQ(frame->index, frames);
        EXPECT_EQ(read_pattern(*frame), frames);
        ++frames;
    }
    EXPECT_GT(frames, 0);
    EXPECT_LT(frames, kClipFrames);
    EXPECT_LT(reader.frame_count(), kClipFrames);

    for (const auto& call :
         std::vector<std::function<void()>>{[&] { reader.decode_range(0, kClipFrames, {}); },
                                            [&] {
                                                reader.seek(kClipFrames - 1);
                                            }}) {
        try {
            call();
            ADD_FAILURE() << "lost frames were handed out";
        } catch (const MediaError& error) {
            EXPECT_EQ(error.reason(), ErrorReason::Corrupt) << error.what();
        }
    }
    reader.seek(1);
    EXPECT_EQ(read_pattern(*reader.read()), 1);
    EXPECT_EQ(read_pattern(thumbnail(path.string(), 0.0, 0)), 0);
}

// check_frames() is the one check the studio's import and the engine's prepare share: a faststart
// MP4 cut short still lists every frame in its header, and that count is what gives it away.
TEST(BadFiles, FrameCheckFindsATruncatedMp4AndPassesAWholeOne) {
    const std::string whole = clip_path(source_clip(true));
    for (const LastFrame last : {LastFrame::Skip, LastFrame::Decode}) {
        VideoReader reader(whole);
        const FrameCheck check = check_frames(reader, last);
        EXPECT_EQ(check.problem, FrameProblem::None) << check.detail;
        EXPECT_EQ(check.frames, kClipFrames);
        EXPECT_EQ(check.listed, kClipFrames);
        EXPECT_TRUE(check.detail.empty());
    }

    const std::string bytes = read_file(whole);
    const fs::path cut = scratch_folder("truncated") / "sixty-percent.mp4";
    write_file(cut, bytes.substr(0, bytes.size() * 6 / 10));
    for (const LastFrame last : {LastFrame::Skip, LastFrame::Decode}) {
        VideoReader reader(cut.string());
        const FrameCheck check = check_frames(reader, last);
        EXPECT_EQ(check.problem, FrameProblem::Truncated);
        EXPECT_GT(check.frames, 0);
        EXPECT_LT(check.frames, kClipFrames);
        EXPECT_EQ(check.listed, kClipFrames);
        EXPECT_EQ(check.detail, std::to_string(check.frames) + " of the " +
                                    std::to_string(kClipFrames) +
                                    " frames the container lists are present");
    }
}

TEST(BadFiles, TruncatedStreamsWithoutFrameCountsEndCleanly) {
    for (const ClipSpec& spec : format_specs()) {
        SCOPED_TRACE(spec.name);
        const fs::path path = first_half_of(clip_path(spec), "half-" + spec.name);
        try {
            VideoReader reader(path.string());
            int frames = 0;
            while (const std::optional<Frame> frame = reader.read()) {
                ++frames;
            }
            EXPECT_LT(frames, kClipFrames);
            EXPECT_THROW(reader.decode_range(0, kClipFrames, {}), MediaError);
        } catch (const MediaError& error) {
            EXPECT_EQ(error.reason(), ErrorReason::Corrupt) << error.what();
        }
    }
}

TEST(BadFiles, DamagedMiddleNeitherCrashesNorHangs) {
    for (const ClipSpec& spec : format_specs()) {
        SCOPED_TRACE(spec.name);
        std::string bytes = read_file(clip_path(spec));
        const std::string noise = random_bytes(bytes.size() / 5, 99);
        bytes.replace(bytes.size() * 2 / 5, noise.size(), noise);
        const fs::path path = scratch_folder("damaged") / spec.name;
        write_file(path, bytes);
        try {
            VideoReader reader(path.string());
            int frames = 0;
            while (reader.read() && frames < 10 * kClipFrames) {
                ++frames;
            }
            EXPECT_LT(frames, 10 * kClipFrames);
            reader.seek(std::max<int64_t>(0, reader.frame_count() - 1));
            reader.read();
        } catch (const MediaError& error) {
            EXPECT_NE(error.reason(), ErrorReason::None);
        }
    }
}

} // namespace
} // namespace tuneframe::media::test
