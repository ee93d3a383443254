#pragma once

#include "common/training_job.h"

#include <nlohmann/json.hpp>

#include <filesystem>

namespace tuneframe::core {

// A job or sweep grid file's JSON: one value and nothing after it. A BadInput error for a file
// that is not a regular file, is larger than any job, holds a NUL byte or is not JSON.
nlohmann::json read_job_json(const std::filesystem::path& file);

// Reads a job.json with the shared job reader; its JobError becomes a BadInput Error (the
// message names the file and the field, the hint the fix).
common::TrainingJob read_job_file(const std::filesystem::path& job_file);

// A path the job names (model, manifest, cache), relative to the job file's folder unless
// absolute.
std::filesystem::path job_relative_path(const std::filesystem::path& job_file,
                                        const std::string& path);

} // namespace tuneframe::core
