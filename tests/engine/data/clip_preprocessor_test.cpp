// The clip preprocessor on clips written here with media's VideoWriter: the frames a trimmed
// bucket asks for are the ones decoded (each frame's grey level encodes its index), and each
// resize mode puts the picture where its placement says (a horizontal ramp shows the columns).
#include "common/bucket_assignment.h"
#include "engine/data/clip_preprocessor.h"
#include "media/log_level.h"
#include "media/video_writer.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <functional>

namespace tuneframe::data {
namespace {

namespace fs = std::filesystem;

// Lossless H.264 (CRF 0) so the tests measure the preprocessor, not the codec.
void write_clip(const fs::path& path, int width, int height, int frames,
                const std::function<std::uint8_t(int frame, int x, int y)>& grey) {
    media::WriterOptions options;
    options.crf = 0;
    options.gop_size = 4;
    media::VideoWriter writer(path.string(), width, height, options);
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3);
    for (int f = 0; f < frames; ++f) {
        for (int y = 0; y < height; ++y) {
            for (int x = 0; x < width; ++x) {
                const std::uint8_t value = grey(f, x, y);
                std::uint8_t* pixel = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
                pixel[0] = pixel[1] = pixel[2] = value;
            }
        }
        writer.write(rgb.data());
    }
    writer.finish();
}

int index_grey(int frame) {
    return 20 + 10 * frame;
}

// [-1, 1] back to 0..255.
double to_grey(double value) {
    return (value + 1.0) / 2.0 * 255.0;
}

class ClipPreprocessorTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { media::set_log_level(); }

    test::TemporaryDirectory dir_;
};

TEST_F(ClipPreprocessorTest, TakesTheFramesTheBucketNamesForATrimmedClip) {
    const fs::path clip = dir_ / "index.mp4";
    write_clip(clip, 64, 48, 20, [](int f, int, int) { return index_grey(f); });
    ClipPreprocessor preprocessor(clip);
    ASSERT_EQ(preprocessor.frame_count(), 20);
    EXPECT_EQ(preprocessor.display_width(), 64);
    EXPECT_EQ(preprocessor.display_height(), 48);

    common::BucketConfig config;
    config.frame_buckets = {5};
    config.resolutions = {{32, 32}};
    const common::BucketAssignment bucket =
        common::assign_bucket({20, 3, 19, 64, 48}, config); // frames [3, 19): stride 3
    ASSERT_TRUE(bucket.assigned()) << bucket.message;
    ASSERT_EQ(bucket.frame_indices, (std::vector<std::int64_t>{3, 6, 9, 12, 15}));

    const FramePlacement placement = place_frames(ResizeMode::Stretch, 64, 48, 32, 32, 0, 0);
    const at::Tensor video = preprocessor.decode(bucket.frame_indices, placement);
    ASSERT_EQ(video.sizes(), (std::vector<std::int64_t>{1, 3, 5, 32, 32}));
    EXPECT_EQ(video.scalar_type(), torch::kFloat);
    EXPECT_GE(video.min().item<float>(), -1.0f);
    EXPECT_LE(video.max().item<float>(), 1.0f);
    for (int i = 0; i < 5; ++i) {
        const double grey = to_grey(video[0].select(1, i).mean().item<double>());
        // Neighbouring frames differ by 10; limited-range YUV rounding costs about 2.
        EXPECT_NEAR(grey, index_grey(static_cast<int>(bucket.frame_indices[i])), 4.0)
            << "output frame " << i;
    }
    // Consecutive indices decode in one run; the frames are the same.
    const at::Tensor run = preprocessor.decode({10, 11, 12}, placement);
    EXPECT_NEAR(to_grey(run[0].select(1, 2).mean().item<double>()), index_grey(12), 4.0);
}

// Column c of the output shows source column (c + crop_x + 0.5) * source / scaled - 0.5 of a
// ramp whose grey is 4 * x; bicubic filtering blurs a pixel or two, so the inner columns are
// checked with a tolerance of about two source columns.
void expect_columns(const at::Tensor& video, const FramePlacement& placement, int source_width,
                    const char* mode) {
    const at::Tensor row_means = video[0][0][0].mean(0); // [W]
    for (int c = 2; c < placement.width - 2; ++c) {
        const double x = (c + placement.crop_x + 0.5) * source_width / placement.scaled_width - 0.5;
        EXPECT_NEAR(to_grey(row_means[c].item<double>()), 4.0 * x, 9.0) << mode << ", column " << c;
    }
}

TEST_F(ClipPreprocessorTest, ResizeModesPlaceThePicture) {
    const fs::path clip = dir_ / "ramp.mp4";
    write_clip(clip, 64, 48, 9, [](int, int x, int) { return static_cast<std::uint8_t>(4 * x); });
    ClipPreprocessor preprocessor(clip);
    const std::vector<std::int64_t> frames = {0, 4, 8};

    const FramePlacement stretch = place_frames(ResizeMode::Stretch, 64, 48, 32, 32, 0, 0);
    const at::Tensor stretched = preprocessor.decode(frames, stretch);
    ASSERT_EQ(stretched.sizes(), (std::vector<std::int64_t>{1, 3, 3, 32, 32}));
    expect_columns(stretched, stretch, 64, "stretch");

    const FramePlacement center = place_frames(ResizeMode::CenterCrop, 64, 48, 32, 32, 0, 0);
    const at::Tensor centred = preprocessor.decode(frames, center);
    ASSERT_EQ(centred.sizes(), (std::vector<std::int64_t>{1, 3, 3, 32, 32}));
    expect_columns(centred, center, 64, "center_crop");
    // The crop keeps the middle: both edges lose the same share of the ramp.
    EXPECT_GT(to_grey(centred[0][0][0].mean(0)[0].item<double>()), 20.0);
    EXPECT_LT(to_grey(centred[0][0][0].mean(0)[31].item<double>()), 235.0);

    bool saw_offset = false;
    for (std::int64_t clip_index = 0; clip_index < 6; ++clip_index) {
        const FramePlacement random =
            place_frames(ResizeMode::RandomCrop, 64, 48, 32, 32, 7, clip_index);
        saw_offset = saw_offset || random.crop_x != center.crop_x;
        const at::Tensor cropped = preprocessor.decode(frames, random);
        ASSERT_EQ(cropped.sizes(), (std::vector<std::int64_t>{1, 3, 3, 32, 32}));
        expect_columns(cropped, random, 64, "random_crop");
    }
    EXPECT_TRUE(saw_offset);
}

TEST_F(ClipPreprocessorTest, PortraitClipsCropRows) {
    const fs::path clip = dir_ / "portrait.mp4";
    write_clip(clip, 48, 64, 9, [](int, int, int y) { return static_cast<std::uint8_t>(4 * y); });
    ClipPreprocessor preprocessor(clip);
    const FramePlacement random = place_frames(ResizeMode::RandomCrop, 48, 64, 32, 32, 3, 1);
    ASSERT_EQ(random.scaled_height, 43);
    const at::Tensor video = preprocessor.decode({0}, random);
    const at::Tensor column_means = video[0][0][0].mean(1); // [H]
    for (int r = 2; r < 30; ++r) {
        const double y = (r + random.crop_y + 0.5) * 64 / random.scaled_height - 0.5;
        EXPECT_NEAR(to_grey(column_means[r].item<double>()), 4.0 * y, 9.0) << "row " << r;
    }
}

TEST_F(ClipPreprocessorTest, BadFilesAreClipErrorsWithReasons) {
    try {
        ClipPreprocessor missing(dir_ / "missing.mp4");
        FAIL();
    } catch (const ClipError& error) {
        EXPECT_EQ(error.reason(), "not_found");
    }
    test::write_bytes(dir_ / "garbage.mp4", std::string(4096, '\x5a'));
    try {
        ClipPreprocessor garbage(dir_ / "garbage.mp4");
        garbage.frame_count();
        FAIL();
    } catch (const ClipError& error) {
        EXPECT_FALSE(error.reason().empty());
        EXPECT_NE(std::string(error.what()).find("garbage.mp4"), std::string::npos);
    }
    const fs::path clip = dir_ / "short.mp4";
    write_clip(clip, 32, 32, 4, [](int f, int, int) { return index_grey(f); });
    ClipPreprocessor preprocessor(clip);
    EXPECT_THROW(
        preprocessor.decode({2, 9}, place_frames(ResizeMode::Stretch, 32, 32, 32, 32, 0, 0)),
        ClipError);
}

// A faststart MP4 cut at 60% keeps the header that lists all 50 frames: prepare used to train
// the frames left (a 21-frame bucket) while the studio flagged the same file "truncated".
// Now the preprocessor refuses it with the studio's check and its words.
TEST_F(ClipPreprocessorTest, TruncatedClipIsRefusedAsTheStudioFlagsIt) {
    const fs::path whole = dir_ / "whole.mp4";
    // Noise makes every frame cost bytes, so the first 60% of the file holds whole frames.
    write_clip(whole, 64, 48, 50, [](int f, int x, int y) {
        return static_cast<std::uint8_t>((x * 131 + y * 71 + f * 97 + x * y * 13) % 251);
    });
    ClipPreprocessor intact(whole);
    EXPECT_EQ(intact.frame_count(), 50);

    const std::string bytes = test::read_bytes(whole);
    const fs::path cut = dir_ / "cut.mp4";
    test::write_bytes(cut, bytes.substr(0, bytes.size() * 6 / 10));
    ClipPreprocessor truncated(cut);
    try {
        truncated.frame_count();
        FAIL() << "a truncated clip was counted";
    } catch (const ClipError& error) {
        EXPECT_EQ(error.reason(), "truncated");
        const std::string message = error.what();
        EXPECT_NE(message.find(cut.string()), std::string::npos) << message;
        EXPECT_NE(message.find("of the 50 frames the container lists are present"),
                  std::string::npos)
            << message;
        EXPECT_NE(message.find("left out"), std::string::npos) << message;
    }
}

} // namespace
} // namespace tuneframe::data
