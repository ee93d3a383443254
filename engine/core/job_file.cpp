#include "engine/core/job_file.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

namespace tuneframe::core {

common::TrainingJob read_job_file(const std::filesystem::path& job_file) {
    try {
        return common::TrainingJob::from_json(read_json_file(job_file), job_file.string());
    } catch (const common::JobError& error) {
        throw Error(ErrorCode::BadInput, error.what(), error.hint()).with_field(error.field());
    }
}

std::filesystem::path job_relative_path(const std::filesystem::path& job_file,
                                        const std::string& path) {
    const std::filesystem::path p(path);
    return p.is_absolute() ? p : (job_file.parent_path() / p).lexically_normal();
}

} // namespace tuneframe::core
