// The sweep grid: any JSON text as grid.json, read and expanded over a default job as
// `tuneframe-engine sweep` does. JobError is the documented refusal.
#include "common/sweep_grid.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fuzz::as_text(data, size);
    const nlohmann::json input = nlohmann::json::parse(text, nullptr, false);
    if (input.is_discarded()) {
        return 0; // read_json_file refuses it before the grid reader sees it
    }
    try {
        const common::SweepGrid grid = common::SweepGrid::from_json(input, "grid.json");
        grid.to_json().dump();
        const std::vector<common::SweepPoint> points =
            grid.expand(nlohmann::json::object(), "job.json");
        if (points.size() != grid.size()) {
            __builtin_trap();
        }
    } catch (const common::JobError&) {
        // The documented outcome for a grid the job reader refuses.
    }
    return 0;
}
