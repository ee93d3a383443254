// The sweep grid: any bytes as grid.json, read as `tuneframe-engine sweep` reads it (one JSON
// value, no NUL) and expanded over a default job. JobError is the documented refusal; every
// job of an accepted grid keeps within the job's table of limits.
#include "common/sweep_grid.h"
#include "engine/core/error.h"
#include "engine/core/job_file.h"
#include "tests/fuzz/fuzz_support.h"
#include "tests/fuzz/job_limits_check.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = fuzz::write_scratch_file("grid.json", fuzz::as_text(data, size));
    nlohmann::json input;
    try {
        input = core::read_job_json(path);
    } catch (const core::Error&) {
        return 0; // not one JSON value: refused before the grid reader sees it
    }
    try {
        const common::SweepGrid grid = common::SweepGrid::from_json(input, "grid.json");
        grid.to_json().dump();
        if (grid.name.size() > common::kMaxSweepNameBytes || grid.size() > common::kMaxSweepRuns ||
            grid.axes.size() > common::kMaxSweepAxes) {
            __builtin_trap();
        }
        const std::vector<common::SweepPoint> points =
            grid.expand(nlohmann::json::object(), "job.json");
        if (points.size() != grid.size()) {
            __builtin_trap();
        }
        for (const common::SweepPoint& point : points) {
            fuzz::check_job_within_limits(point.job);
        }
    } catch (const common::JobError&) {
        // The documented outcome for a grid the job reader refuses.
    }
    return 0;
}
