// The sampler's videos written as MP4 files: a drive that fills while one is written is an Io
// error naming the file and the room left (the validation pass used to report "bad_input: the
// container refused the stream settings", sending users to their codec settings).
#include "engine/core/error.h"
#include "engine/core/video_tensors.h"
#include "tests/support/full_disk.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>

namespace tuneframe::core {
namespace {

namespace fs = std::filesystem;

#ifdef TUNEFRAME_HAVE_MEDIA

// [F, 3, H, W] in [0, 1] with noise, so the file is larger than the room left below.
at::Tensor noisy_video() {
    torch::manual_seed(0);
    return torch::rand({24, 3, 96, 160});
}

TEST(VideoTensors, AVideoWrittenToAFullDriveIsAnIoErrorAboutSpace) {
    test::TemporaryDirectory dir;
    test::SmallDisk disk(dir / "disk", 512 * 1024);
    if (!disk.mounted()) {
        GTEST_SKIP() << disk.why_not();
    }
    for (const std::uint64_t room : {0, 4096, 64 * 1024}) {
        const fs::path filler = disk.fill(room);
        const fs::path video = disk.folder() / "validation" / "0.mp4";
        fs::create_directories(video.parent_path());
        try {
            write_video_file(noisy_video(), video, 8);
            ADD_FAILURE() << "a video was written with " << room << " bytes free";
        } catch (const Error& error) {
            const std::string message = error.what();
            EXPECT_EQ(error.code(), ErrorCode::Io) << message;
            EXPECT_NE(message.find(video.string()), std::string::npos) << message;
            EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
            EXPECT_NE(message.find("free on its drive"), std::string::npos) << message;
            EXPECT_NE(error.hint().find("disk space"), std::string::npos) << error.hint();
        }
        EXPECT_FALSE(fs::exists(video));
        fs::remove(filler);
    }
}

#endif

} // namespace
} // namespace tuneframe::core
