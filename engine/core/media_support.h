#pragma once

// Whether this engine can decode clips and pictures and encode videos (FFmpeg, media/), and the
// start-of-command checks that make an engine built without it refuse a job that needs it before
// any model loads: otherwise `prepare` would load T5 and the VAE and then skip every clip, and
// `train` would fail at its first validation, possibly hours in.

#include "common/training_job.h"

#include <filesystem>

namespace tuneframe::core {

bool engine_has_media();

// `prepare` decodes every clip of the manifest: it needs media whatever the job says.
void require_media_for_prepare(const std::filesystem::path& job_file, bool has_media);

// `train` writes validation videos (and reads I2V validation images) for the job's prompts,
// periodically or when the studio asks for a sample; without prompts it touches no media.
void require_media_for_validation(const common::TrainingJob& job,
                                  const std::filesystem::path& job_file, bool has_media);

// `sample --out` encodes the video it is asked for.
void require_media_for_video(const std::filesystem::path& video, bool has_media);

} // namespace tuneframe::core
