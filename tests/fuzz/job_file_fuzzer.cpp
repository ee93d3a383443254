// The job file: any bytes as job.json, read as `prepare` and `train` read it. A job it accepts
// keeps every field within the table of limits and reads back from what the engine records
// (to_json), which must not throw either.
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/job_limits_check.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = fuzz::write_scratch_file("job.json", fuzz::as_text(data, size));
    try {
        const common::TrainingJob job = core::read_job_file(path);
        job.to_json().dump();
        fuzz::check_job_within_limits(job);
        core::job_relative_path(path, job.model);
    } catch (const core::Error&) {
        // The documented outcome for a malformed job (JobError arrives as BadInput).
    }
    return 0;
}
