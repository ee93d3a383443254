#include "common/sweep_grid.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

namespace tuneframe::common {

using json = nlohmann::json;

namespace {

constexpr std::size_t kMaximumRuns = 256;

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

// The value at a field path of a whole job, or null.
const json* find_field(const json& job, const std::string& field) {
    const json* node = &job;
    std::size_t start = 0;
    while (start <= field.size()) {
        const std::size_t dot = field.find('.', start);
        const std::string key = field.substr(start, dot == std::string::npos ? dot : dot - start);
        if (!node->is_object() || !node->contains(key)) {
            return nullptr;
        }
        node = &(*node)[key];
        if (dot == std::string::npos) {
            return node;
        }
        start = dot + 1;
    }
    return nullptr;
}

// json::value() would throw type_error for a name that is not a string, past the JobError
// both readers catch.
std::string read_name(const json& input, const std::string& origin) {
    const auto name = input.find("name");
    if (name == input.end() || name->is_null()) {
        return "sweep";
    }
    if (!name->is_string()) {
        throw JobError(origin + ": \"name\" must be a string.", "name",
                       R"(Put the sweep's name in double quotes, e.g. "lr-by-rank".)");
    }
    return name->get<std::string>();
}

} // namespace

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
    SweepGrid grid;
    grid.name = read_name(input, origin);
    for (const auto& [field, values] : input["axes"].items()) {
        if (!values.is_array() || values.empty()) {
            throw JobError(origin + ": axis \"" + field + "\" has no values.", "axes." + field,
                           "Give a list of at least one value, e.g. [1e-4, 3e-4].");
        }
        grid.axes.push_back({field, values.get<std::vector<json>>()});
    }
    if (grid.axes.empty()) {
        throw JobError(origin + ": the sweep grid has no axes.", "axes",
                       "Name at least one job field to vary, e.g. \"optimizer.lr\".");
    }
    if (grid.size() > kMaximumRuns) {
        const std::string count =
            grid.size() == SIZE_MAX ? "at least 2^64" : std::to_string(grid.size());
        throw JobError(origin + ": the grid has " + count + " combinations, more than " +
                           std::to_string(kMaximumRuns) + ".",
                       "axes", "Sweep fewer values at once.");
    }
    return grid;
}

json SweepGrid::to_json() const {
    json axes = json::object();
    for (const SweepAxis& axis : this->axes) {
        axes[axis.field] = axis.values;
    }
    return {{"name", name}, {"axes", axes}};
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
    const json whole = TrainingJob::from_json(base, origin).to_json();
    for (const SweepAxis& axis : axes) {
        const json* current = find_field(whole, axis.field);
        if (!current || current->is_object()) {
            throw JobError(origin + ": \"" + axis.field + "\" is not a job field a sweep can vary.",
                           "axes." + axis.field,
                           "Use a field path of the job, e.g. optimizer.lr, lora.rank, "
                           "lr_schedule.name, max_steps or batch_size.");
        }
        if (whole.value("mode", std::string()) == "full" && axis.field.rfind("lora.", 0) == 0) {
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
