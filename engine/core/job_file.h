#pragma once

#include "common/training_job.h"

#include <filesystem>

namespace tuneframe::core {

// Reads a job.json with the shared job reader; its JobError becomes a BadInput Error (the
// message names the file and the field, the hint the fix).
common::TrainingJob read_job_file(const std::filesystem::path& job_file);

// A path the job names (model, manifest, cache), relative to the job file's folder unless
// absolute.
std::filesystem::path job_relative_path(const std::filesystem::path& job_file,
                                        const std::string& path);

} // namespace tuneframe::core
