// The start-of-command refusals of an engine built without FFmpeg. The checks take "has media" as
// an argument, so this build (which has FFmpeg) shows what one without it says.
#include "engine/core/error.h"
#include "engine/core/media_support.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace tuneframe::core {
namespace {

// The Error a call throws; a call that throws nothing fails the test.
Error error_of(const std::function<void()>& call) {
    try {
        call();
    } catch (const Error& error) {
        return error;
    }
    ADD_FAILURE() << "no error was thrown";
    return Error(ErrorCode::None, "");
}

TEST(MediaSupport, ThisBuildHasMedia) {
#ifdef TUNEFRAME_HAVE_MEDIA
    EXPECT_TRUE(engine_has_media());
#else
    EXPECT_FALSE(engine_has_media());
#endif
}

TEST(MediaSupport, PrepareNeedsMediaAndNamesTheJob) {
    EXPECT_NO_THROW(require_media_for_prepare("/runs/a/job.json", true));
    const Error error = error_of([] { require_media_for_prepare("/runs/a/job.json", false); });
    EXPECT_EQ(error.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(error.what()).find("'/runs/a/job.json'"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("without FFmpeg"), std::string::npos);
    EXPECT_NE(error.hint().find("TUNEFRAME_WITH_FFMPEG=ON"), std::string::npos);
}

TEST(MediaSupport, TrainingNeedsMediaOnlyForValidationPrompts) {
    common::TrainingJob job;
    EXPECT_NO_THROW(require_media_for_validation(job, "job.json", false));
    job.validation.prompts = {"a red ball", "a blue square"};
    EXPECT_NO_THROW(require_media_for_validation(job, "job.json", true));
    // Prompts alone count, even with no periodic validation: Sample Now validates with them.
    job.validation.every_steps = 0;
    const Error error = error_of([&] { require_media_for_validation(job, "job.json", false); });
    EXPECT_EQ(error.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(error.what()).find("2 validation prompts in 'job.json'"),
              std::string::npos);
    EXPECT_NE(error.hint().find("Remove validation.prompts"), std::string::npos);
}

TEST(MediaSupport, SampleVideoNeedsMediaTensorsDoNot) {
    EXPECT_NO_THROW(require_media_for_video("out.mp4", true));
    const Error error = error_of([] { require_media_for_video("out.mp4", false); });
    EXPECT_EQ(error.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(error.what()).find("'out.mp4'"), std::string::npos);
    EXPECT_NE(error.hint().find("--save-tensors"), std::string::npos);
}

} // namespace
} // namespace tuneframe::core
