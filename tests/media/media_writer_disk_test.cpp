// VideoWriter against a full disk (every stage that writes says so, with the room left, as an
// Io error) and against leftovers in memory (the same frames always give the same bytes).
#include "media/video_writer.h"
#include "test_clips.h"
#include "tests/support/full_disk.h"
#include "tests/support/process_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace tuneframe::media::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kChildOutput = "TUNEFRAME_WRITER_CHILD_OUTPUT";
// Noisy frames cost many bytes, so each limit below stops a different stage of the writer.
constexpr int kNoisyWidth = 160;
constexpr int kNoisyHeight = 96;
constexpr int kNoisyFrames = 24;
constexpr int kNoise = 40;

void write_noisy_clip(const std::string& path) {
    VideoWriter writer(path, kNoisyWidth, kNoisyHeight);
    for (int i = 0; i < kNoisyFrames; ++i) {
        writer.write(pattern_frame(i, kNoisyWidth, kNoisyHeight, kNoise));
    }
    writer.finish();
}

std::vector<std::string> names_in(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// "<reason>: <message>" of the MediaError writing the noisy clip to `path` throws, or "none".
std::string failure_writing(const std::string& path) {
    try {
        write_noisy_clip(path);
    } catch (const MediaError& error) {
        return std::string(to_string(error.reason())) + ": " + error.what();
    }
    return "none";
}

// A red ball rolling over a gradient, as the validation videos of the tiny test models look:
// smooth content whose macroblocks x264's rate control weighs against each other.
void write_rolling_ball(const std::string& path) {
    constexpr int kWidth = 64;
    constexpr int kHeight = 48;
    VideoWriter writer(path, kWidth, kHeight);
    std::vector<std::uint8_t> rgb(std::size_t{kWidth} * kHeight * 3);
    for (int f = 0; f < 9; ++f) {
        for (int y = 0; y < kHeight; ++y) {
            for (int x = 0; x < kWidth; ++x) {
                const int dx = x - 8 - 4 * f;
                const bool ball = dx * dx + (y - 24) * (y - 24) < 64;
                std::uint8_t* pixel = &rgb[(std::size_t(y) * kWidth + x) * 3];
                pixel[0] = ball ? 230 : static_cast<std::uint8_t>(20 + y * 2);
                pixel[1] = ball ? 40 : 60;
                pixel[2] = ball ? 40 : 160;
            }
        }
        writer.write(rgb.data());
    }
    writer.finish();
}

// Run as a child of the test below, with glibc's allocator filling fresh and freed memory with
// a byte of the test's choosing; skipped when run on its own.
TEST(WriterChild, WritesTheClipsWhereItIsTold) {
    const char* output = std::getenv(kChildOutput);
    if (output == nullptr) {
        GTEST_SKIP() << "run by Writer.TheSameFramesGiveTheSameBytesWhateverMemoryHeldBefore";
    }
    write_rolling_ball(std::string(output) + ".ball.mp4");
    write_noisy_clip(std::string(output) + ".noise.mp4");
}

// Two validation videos of identical runs differed: x264 read memory it never wrote, so the
// bytes depended on what the process had held there before. glibc's perturb tunable makes
// that memory differ on purpose.
TEST(Writer, TheSameFramesGiveTheSameBytesWhateverMemoryHeldBefore) {
    const fs::path folder = scratch_folder("reproducible");
    std::vector<std::string> balls;
    std::vector<std::string> noise;
    for (const char* perturb : {"0", "85", "170"}) {
        const fs::path stem = folder / (std::string("perturb-") + perturb);
        ::setenv(kChildOutput, stem.c_str(), 1);
        ::setenv("GLIBC_TUNABLES", (std::string("glibc.malloc.perturb=") + perturb).c_str(), 1);
        const tuneframe::test::ProcessResult run = tuneframe::test::run_process(
            {"/proc/self/exe", "--gtest_filter=WriterChild.WritesTheClipsWhereItIsTold"});
        ::unsetenv("GLIBC_TUNABLES");
        ::unsetenv(kChildOutput);
        ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
        balls.push_back(read_file(stem.string() + ".ball.mp4"));
        noise.push_back(read_file(stem.string() + ".noise.mp4"));
        ASSERT_GT(balls.back().size(), 1000u);
    }
    for (std::size_t i = 1; i < balls.size(); ++i) {
        EXPECT_TRUE(balls[0] == balls[i]) << "the rolling ball differs under perturb run " << i;
        EXPECT_TRUE(noise[0] == noise[i]) << "the noisy clip differs under perturb run " << i;
    }
}

// swscale reads a little past the last pixel of the frame it converts: what the caller's memory
// holds there must not reach the file.
TEST(Writer, BytesAfterTheCallersFrameDoNotReachTheFile) {
    const fs::path folder = scratch_folder("past-the-frame");
    std::vector<std::string> files;
    for (const std::uint8_t after : {0x00, 0xff}) {
        const std::string path = (folder / ("after-" + std::to_string(after) + ".mp4")).string();
        VideoWriter writer(path, kNoisyWidth, kNoisyHeight);
        const std::size_t frame_bytes = std::size_t{kNoisyWidth} * kNoisyHeight * 3;
        std::vector<std::uint8_t> memory(frame_bytes + 64, after);
        for (int i = 0; i < kNoisyFrames; ++i) {
            const Frame frame = pattern_frame(i, kNoisyWidth, kNoisyHeight, kNoise);
            std::memcpy(memory.data(), frame.rgb.data(), frame_bytes);
            writer.write(memory.data());
        }
        writer.finish();
        files.push_back(read_file(path));
    }
    EXPECT_TRUE(files[0] == files[1]);
}

// A full disk reported as "the container refused the stream settings… Pick another codec" sent
// users to their settings: each limit stops another stage (header, frames, the index the
// trailer moves to the front), and each says the drive is full and how much is free.
TEST(Writer, AFullDiskAtAnyStageIsAnIoErrorAboutSpace) {
    for (const std::uint64_t limit : {0, 700, 6000, 30000}) {
        const fs::path folder = scratch_folder("limit-" + std::to_string(limit));
        const std::string path = (folder / "out.mp4").string();
        const std::string outcome =
            tuneframe::test::with_file_size_limit(limit, [&path] { return failure_writing(path); });
        EXPECT_EQ(outcome.rfind("io: ", 0), 0u) << limit << ": " << outcome;
        EXPECT_NE(outcome.find("File too large"), std::string::npos) << limit << ": " << outcome;
        EXPECT_NE(outcome.find("free on its drive"), std::string::npos) << limit << ": " << outcome;
        EXPECT_EQ(outcome.find("Pick another codec"), std::string::npos) << outcome;
        EXPECT_TRUE(names_in(folder).empty()) << limit << ": a half-written file was left";
    }
}

TEST(Writer, ARealFullDriveSaysThereIsNoSpaceAndLeavesNothing) {
    const fs::path folder = scratch_folder("full-drive");
    tuneframe::test::SmallDisk disk(folder / "disk", 256 * 1024);
    if (!disk.mounted()) {
        GTEST_SKIP() << disk.why_not();
    }
    const fs::path filler = disk.fill(8 * 1024);
    const std::string outcome = failure_writing((disk.folder() / "out.mp4").string());
    EXPECT_EQ(outcome.rfind("io: ", 0), 0u) << outcome;
    EXPECT_NE(outcome.find("No space left on device"), std::string::npos) << outcome;
    EXPECT_NE(outcome.find("free on its drive"), std::string::npos) << outcome;
    EXPECT_EQ(names_in(disk.folder()), std::vector<std::string>{".filler"});
    // With the room back the same write succeeds.
    fs::remove(filler);
    EXPECT_EQ(failure_writing((disk.folder() / "out.mp4").string()), "none");
}

} // namespace
} // namespace tuneframe::media::test
