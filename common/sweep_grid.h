#pragma once

#include "common/training_job.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

// A hyper-parameter sweep: a few job fields, each with the values to try, expanded into the
// grid of jobs (every combination). The studio's sweep dialog and `tuneframe-engine sweep`
// both read and expand it here, so a grid file means the same in both (docs/protocol.md,
// "Sweep grid"):
//   {"name": "lr-by-rank", "axes": {"optimizer.lr": [1e-4, 3e-4], "lora.rank": [32, 64]}}
namespace tuneframe::common {

inline constexpr int kSweepVersion = 1;
inline constexpr std::size_t kMaxSweepRuns = 256; // the product of the axes' lengths
inline constexpr std::size_t kMaxSweepAxes = 16;
inline constexpr std::size_t kMaxSweepNameBytes = 64; // it names the runs' folders

// The grid's fields in the job table's terms: "v" (1 to kSweepVersion), "name" (Text) and
// "axes" (an Object of 1 to kMaxSweepAxes job fields, each "axes.<field>" a list of Values).
// Other fields are errors; null is refused.
const std::vector<JobFieldLimit>& sweep_field_limits();

struct SweepAxis {
    std::string field; // a job field path: "optimizer.lr", "max_steps"
    std::vector<nlohmann::json> values;
};

// One combination: its readable label ("lr=1e-4 rank=32"), the values it sets (as a partial
// job) and the whole job.
struct SweepPoint {
    std::string label;
    nlohmann::json overrides;
    TrainingJob job;
};

struct SweepGrid {
    std::string name;
    std::vector<SweepAxis> axes; // by field name (JSON objects keep no order)

    // A JobError names the origin, the axis and the fix (an unknown field, an empty value
    // list, a value the job reader refuses).
    static SweepGrid from_json(const nlohmann::json& json, const std::string& origin);
    nlohmann::json to_json() const;

    // Combinations in order, the last axis changing fastest. base: a whole or partial job
    // (a preset merged with edits). Each job is checked with the engine's reader.
    std::vector<SweepPoint> expand(const nlohmann::json& base, const std::string& origin) const;
    std::size_t size() const;
};

// "lr" for optimizer.lr, "opt" for optimizer.name, "sched" for lr_schedule.name, ...; the last
// path component otherwise.
std::string sweep_field_short_name(const std::string& field);
// 1e-4 rather than 0.0001, 3 rather than 3.0, strings as they are.
std::string sweep_value_text(const nlohmann::json& value);

} // namespace tuneframe::common
