#include "engine/core/media_support.h"

#include "engine/core/error.h"

#include <string>

namespace tuneframe::core {

namespace {

const char* const kRebuild =
    "use an engine built with FFmpeg (TUNEFRAME_WITH_FFMPEG=ON, the default; on a GPU host "
    "without it, install libavcodec-dev, libavformat-dev, libavutil-dev and libswscale-dev "
    "and build again)";

} // namespace

bool engine_has_media() {
#ifdef TUNEFRAME_HAVE_MEDIA
    return true;
#else
    return false;
#endif
}

void require_media_for_prepare(const std::filesystem::path& job_file, bool has_media) {
    if (has_media) {
        return;
    }
    throw Error(ErrorCode::Unsupported,
                "This engine was built without FFmpeg, so it cannot decode the clips that '" +
                    job_file.string() + "' asks it to prepare.",
                std::string("Prepare the dataset on a machine whose engine has FFmpeg (the latent "
                            "cache it writes is read here as it is), or ") +
                    kRebuild + ".");
}

void require_media_for_validation(const common::TrainingJob& job,
                                  const std::filesystem::path& job_file, bool has_media) {
    if (has_media || job.validation.prompts.empty()) {
        return;
    }
    const std::size_t prompts = job.validation.prompts.size();
    throw Error(ErrorCode::Unsupported,
                "This engine was built without FFmpeg, so it cannot write the validation videos "
                "of the " +
                    std::to_string(prompts) + " validation prompt" + (prompts == 1 ? "" : "s") +
                    " in '" + job_file.string() + "'.",
                std::string("Remove validation.prompts from the job to train without validation, "
                            "or ") +
                    kRebuild + ".");
}

void require_media_for_video(const std::filesystem::path& video, bool has_media) {
    if (has_media) {
        return;
    }
    throw Error(ErrorCode::Unsupported,
                "This engine was built without FFmpeg, so it cannot write the video '" +
                    video.string() + "'.",
                std::string("Ask for the tensors instead (--save-tensors FILE), or ") + kRebuild +
                    ".");
}

} // namespace tuneframe::core
