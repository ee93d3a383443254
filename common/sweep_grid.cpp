#include "common/sweep_grid.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

namespace tuneframe::common {

using json = nlohmann::json;

namespace {

// {"optimizer": {"lr": value}} for "optimizer.lr".
json nested(const std::string& field, const json& value) {
    json result = value;
    std::string rest = field;
    for (std::size_t dot = rest.rfind('.'); dot != std::string::npos; dot = rest.rfind('.')) {
        result = json{{rest.substr(dot + 1), result}};
        rest.resize(dot);
    }
    return json{{rest, result}};
}

std::vector<JobFieldLimit> make_sweep_field_limits() {
    JobFieldLimit version;
    version.field = "v";
    version.type = JobFieldType::Integer;
    version.min_integer = 1;
    version.max_integer = kSweepVersion;
    JobFieldLimit name;
    name.field = "name";
    name.type = JobFieldType::Text;
    name.max_bytes = kMaxSweepNameBytes;
    JobFieldLimit axes;
    axes.field = "axes";
    axes.type = JobFieldType::Object;
    axes.min_items = 1;
    axes.max_items = kMaxSweepAxes;
    JobFieldLimit values;
    values.field = "axes.*";
    values.type = JobFieldType::Values;
    values.min_items = 1;
    values.max_items = kMaxSweepRuns;
    return {version, name, axes, values};
}

// Reads the grid's own fields against sweep_field_limits(); the values are the job reader's.
class GridReader {
public:
    GridReader(const json& input, std::string origin)
        : input_(input)
        , origin_(std::move(origin)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem,
                           const std::string& hint) const {
        throw JobError(origin_ + ": " + problem + ".", field, hint);
    }

    void check_fields() const {
        for (const auto& [key, value] : input_.items()) {
            if (key != "v" && key != "name" && key != "axes") {
                fail(key, "\"" + key + "\" is not a field of a sweep grid",
                     "A grid holds \"v\", \"name\" and \"axes\"; check the spelling.");
            }
            if (value.is_null()) {
                fail(key, "\"" + key + "\" is null",
                     "Leave the field out to keep its default, or give it a value.");
            }
        }
    }

    void check_version() const {
        const auto v = input_.find("v");
        if (v == input_.end()) {
            return;
        }
        if (v->is_number() && v->get<double>() > kSweepVersion) {
            fail("v",
                 "\"v\" is " + v->dump() + ", newer than this build understands (" +
                     std::to_string(kSweepVersion) + ")",
                 "Update Tuneframe, or write the grid with this version.");
        }
        if (!v->is_number() || v->get<double>() < 1 ||
            v->get<double>() != std::floor(v->get<double>())) {
            fail("v", "\"v\" is " + v->dump() + ", not a version", "Write \"v\": 1.");
        }
    }

    // json::value() would throw type_error for a name that is not a string, past the JobError
    // both readers catch.
    std::string name() const {
        const auto name = input_.find("name");
        if (name == input_.end() || (name->is_string() && name->get<std::string>().empty())) {
            return "sweep";
        }
        if (!name->is_string()) {
            fail("name", "\"name\" must be a string",
                 R"(Put the sweep's name in double quotes, e.g. "lr-by-rank".)");
        }
        const std::string text = name->get<std::string>();
        if (text.find('\0') != std::string::npos) {
            fail("name", "\"name\" holds a NUL character", "Remove the NUL character.");
        }
        if (text.size() > kMaxSweepNameBytes) {
            fail("name",
                 "\"name\" is " + std::to_string(text.size()) + " bytes long, more than " +
                     std::to_string(kMaxSweepNameBytes),
                 "The name becomes part of each run's folder name: shorten it to at most " +
                     std::to_string(kMaxSweepNameBytes) + " bytes.");
        }
        return text;
    }

private:
    const json& input_;
    std::string origin_;
};

} // namespace

const std::vector<JobFieldLimit>& sweep_field_limits() {
    static const std::vector<JobFieldLimit> limits = make_sweep_field_limits();
    return limits;
}

std::string sweep_field_short_name(const std::string& field) {
    static const std::map<std::string, std::string> names = {{"optimizer.lr", "lr"},
                                                             {"optimizer.name", "opt"},
                                                             {"optimizer.weight_decay", "wd"},
                                                             {"lr_schedule.name", "sched"},
                                                             {"lr_schedule.warmup_steps", "warmup"},
                                                             {"lora.rank", "rank"},
                                                             {"lora.alpha", "alpha"},
                                                             {"max_steps", "steps"},
                                                             {"batch_size", "batch"},
                                                             {"gradient_accumulation", "accum"}};
    const auto found = names.find(field);
    if (found != names.end()) {
        return found->second;
    }
    const std::size_t dot = field.rfind('.');
    return dot == std::string::npos ? field : field.substr(dot + 1);
}

std::string sweep_value_text(const json& value) {
    if (value.is_string()) {
        return value.get<std::string>();
    }
    if (value.is_number_integer() || value.is_boolean()) {
        return value.dump();
    }
    if (!value.is_number()) {
        return value.dump();
    }
    const double number = value.get<double>();
    if (number == std::floor(number) && std::fabs(number) < 1e6) {
        return std::to_string(static_cast<long long>(number));
    }
    char text[32];
    if (number != 0 && std::fabs(number) < 1e-2) {
        // 1e-4, 3e-5, 2.5e-4: mantissa without trailing zeros, exponent without padding.
        const int exponent = static_cast<int>(std::floor(std::log10(std::fabs(number))));
        const double mantissa = number / std::pow(10.0, exponent);
        std::snprintf(text, sizeof text, "%.6g", mantissa);
        return std::string(text) + "e" + std::to_string(exponent);
    }
    std::snprintf(text, sizeof text, "%.6g", number);
    return text;
}

SweepGrid SweepGrid::from_json(const json& input, const std::string& origin) {
    if (!input.is_object() || !input.contains("axes") || !input["axes"].is_object()) {
        throw JobError(origin + ": a sweep grid is an object with \"axes\".", "axes",
                       R"(Write {"name": "...", "axes": {"optimizer.lr": [1e-4, 3e-4]}}.)");
    }
    const GridReader reader(input, origin);
    reader.check_fields();
    reader.check_version();
    SweepGrid grid;
    grid.name = reader.name();
    for (const auto& [field, values] : input["axes"].items()) {
        if (!values.is_array() || values.empty()) {
            reader.fail("axes." + field, "axis \"" + field + "\" has no values",
                        "Give a list of at least one value, e.g. [1e-4, 3e-4].");
        }
        grid.axes.push_back({field, values.get<std::vector<json>>()});
    }
    if (grid.axes.empty()) {
        reader.fail("axes", "the sweep grid has no axes",
                    "Name at least one job field to vary, e.g. \"optimizer.lr\".");
    }
    if (grid.size() > kMaxSweepRuns) {
        const std::string count =
            grid.size() == SIZE_MAX ? "at least 2^64" : std::to_string(grid.size());
        reader.fail("axes",
                    "the grid has " + count + " combinations, more than " +
                        std::to_string(kMaxSweepRuns),
                    "Sweep fewer values at once.");
    }
    if (grid.axes.size() > kMaxSweepAxes) {
        reader.fail("axes",
                    "the grid has " + std::to_string(grid.axes.size()) + " axes, more than " +
                        std::to_string(kMaxSweepAxes),
                    "Vary fewer fields at once.");
    }
    for (const SweepAxis& axis : grid.axes) {
        const JobFieldLimit* field = find_job_field_limit(axis.field);
        if (!field || field->type == JobFieldType::Object) {
            reader.fail("axes." + axis.field,
                        "\"" + axis.field + "\" is not a job field a sweep can vary",
                        "Use a field path of the job, e.g. optimizer.lr, lora.rank, "
                        "lr_schedule.name, max_steps or batch_size.");
        }
    }
    return grid;
}

json SweepGrid::to_json() const {
    json axes = json::object();
    for (const SweepAxis& axis : this->axes) {
        axes[axis.field] = axis.values;
    }
    return {{"v", kSweepVersion}, {"name", name}, {"axes", axes}};
}

std::size_t SweepGrid::size() const {
    std::size_t count = axes.empty() ? 0 : 1;
    for (const SweepAxis& axis : axes) {
        // Saturates rather than wraps: 64 axes of two values must not pass as an empty grid.
        if (__builtin_mul_overflow(count, axis.values.size(), &count)) {
            return SIZE_MAX;
        }
    }
    return count;
}

std::vector<SweepPoint> SweepGrid::expand(const json& base, const std::string& origin) const {
    const TrainingJob whole = TrainingJob::from_json(base, origin);
    for (const SweepAxis& axis : axes) {
        if (whole.mode == "full" && axis.field.rfind("lora.", 0) == 0) {
            throw JobError(origin +
                               ": the job is a full fine-tune, which trains no adapter, so \"" +
                               axis.field + "\" would make runs that differ only in name.",
                           "axes." + axis.field,
                           "Vary a field a full fine-tune uses (optimizer.lr, lr_schedule.name, "
                           "max_steps, ...), or set the job's mode to lora.");
        }
    }
    std::vector<SweepPoint> points;
    std::vector<std::size_t> index(axes.size(), 0);
    for (std::size_t n = 0; n < size(); ++n) {
        SweepPoint point;
        point.overrides = json::object();
        for (std::size_t a = 0; a < axes.size(); ++a) {
            const json& value = axes[a].values[index[a]];
            point.overrides = merge_job_json(point.overrides, nested(axes[a].field, value));
            point.label += (a ? " " : "") + sweep_field_short_name(axes[a].field) + "=" +
                           sweep_value_text(value);
        }
        point.job = TrainingJob::from_json(merge_job_json(base, point.overrides),
                                           origin + " (" + point.label + ")");
        points.push_back(std::move(point));
        for (std::size_t a = axes.size(); a-- > 0;) {
            if (++index[a] < axes[a].values.size()) {
                break;
            }
            index[a] = 0;
        }
    }
    return points;
}

} // namespace tuneframe::common
