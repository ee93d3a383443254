#include "engine/diffusion/flow_match_common.h"

#include "engine/core/error.h"

#include <algorithm>
#include <cmath>

namespace tuneframe::diffusion {

std::vector<double> numpy_linspace(double start, double stop, int count) {
    std::vector<double> values(static_cast<std::size_t>(std::max(count, 0)));
    if (count == 1) {
        values[0] = start;
        return values;
    }
    const double step = (stop - start) / (count - 1);
    for (int i = 0; i < count; ++i) {
        values[static_cast<std::size_t>(i)] = i * step + start;
    }
    if (count > 1) {
        values.back() = stop;
    }
    return values;
}

double shift_sigma(double sigma, double shift) {
    return shift * sigma / (1 + (shift - 1) * sigma);
}

std::vector<double> shift_sigmas(std::vector<double> sigmas, double shift) {
    for (double& sigma : sigmas) {
        sigma = shift_sigma(sigma, shift);
    }
    return sigmas;
}

std::vector<double> time_shift(std::vector<double> sigmas, double mu, TimeShiftType type) {
    // diffusers raises (1 / t - 1) to the power 1.0, which leaves it unchanged.
    const double scale = type == TimeShiftType::Exponential ? std::exp(mu) : mu;
    for (double& t : sigmas) {
        t = scale / (scale + (1 / t - 1));
    }
    return sigmas;
}

std::vector<double> stretch_to_terminal(std::vector<double> sigmas, double shift_terminal) {
    if (sigmas.empty()) {
        return sigmas;
    }
    const double scale = (1 - sigmas.back()) / (1 - shift_terminal);
    for (double& t : sigmas) {
        t = 1 - ((1 - t) / scale);
    }
    return sigmas;
}

void check_known_keys(const nlohmann::json& json, const std::string& origin,
                      std::initializer_list<const char*> known) {
    if (!json.is_object()) {
        throw core::Error(core::ErrorCode::BadInput, origin + " is not a JSON object.",
                          "Use the scheduler_config.json diffusers writes.");
    }
    for (const auto& item : json.items()) {
        const std::string& key = item.key();
        if (!key.empty() && key.front() == '_') {
            continue;
        }
        const bool listed =
            std::any_of(known.begin(), known.end(), [&](const char* name) { return key == name; });
        if (!listed) {
            throw core::Error(core::ErrorCode::BadInput,
                              origin + ": the field \"" + key +
                                  "\" is not a setting Tuneframe knows for this scheduler.",
                              "Remove \"" + key +
                                  "\" if it does not change the schedule, or use "
                                  "the scheduler class it belongs to.");
        }
    }
}

void unsupported_setting(const std::string& origin, const std::string& key, const std::string& why,
                         const std::string& fix) {
    throw core::Error(core::ErrorCode::BadInput, origin + ": \"" + key + "\" " + why, fix);
}

TimeShiftType parse_time_shift_type(const std::string& value, const std::string& origin) {
    if (value == "exponential") {
        return TimeShiftType::Exponential;
    }
    if (value == "linear") {
        return TimeShiftType::Linear;
    }
    unsupported_setting(origin, "time_shift_type", "is \"" + value + "\", which is not a shift.",
                        "Use \"exponential\" or \"linear\".");
}

const char* time_shift_type_name(TimeShiftType type) {
    return type == TimeShiftType::Linear ? "linear" : "exponential";
}

} // namespace tuneframe::diffusion
