// The job file: any bytes as job.json, read as `prepare` and `train` read it. A job it accepts
// is written back as the engine records it (to_json), which must not throw either.
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = fuzz::write_scratch_file("job.json", fuzz::as_text(data, size));
    try {
        const common::TrainingJob job = core::read_job_file(path);
        job.to_json().dump();
        core::job_relative_path(path, job.model);
    } catch (const core::Error&) {
        // The documented outcome for a malformed job (JobError arrives as BadInput).
    }
    return 0;
}
