#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace tuneframe::diffusion {

// What the flow-matching schedulers share: their sigma formulas in float64, written step by step
// as numpy evaluates them (diffusers builds these schedules with numpy), so the float32 tables
// cast from them round where the reference rounds.

enum class TimeShiftType { Invalid, Exponential, Linear };

// numpy.linspace(start, stop, count) with its endpoint: start + i * step, the last entry stop.
std::vector<double> numpy_linspace(double start, double stop, int count);

// shift * s / (1 + (shift - 1) * s), the static timestep shift of SD3 and Wan.
double shift_sigma(double sigma, double shift);
std::vector<double> shift_sigmas(std::vector<double> sigmas, double shift);

// The resolution-dependent shift (use_dynamic_shifting): exp(mu) / (exp(mu) + (1 / t - 1)) or
// mu / (mu + (1 / t - 1)).
std::vector<double> time_shift(std::vector<double> sigmas, double mu, TimeShiftType type);

// Stretches the schedule so its last entry is `shift_terminal` (LTX-Video's rule).
std::vector<double> stretch_to_terminal(std::vector<double> sigmas, double shift_terminal);

// A scheduler_config.json as diffusers writes it: keys starting with '_' are metadata; any other
// key not in `known` is a BadInput error naming the file and the key, since a setting Tuneframe
// does not know could change the schedule.
void check_known_keys(const nlohmann::json& json, const std::string& origin,
                      std::initializer_list<const char*> known);

// A BadInput error for a setting Tuneframe cannot honour, naming the file and the field.
[[noreturn]] void unsupported_setting(const std::string& origin, const std::string& key,
                                      const std::string& why, const std::string& fix);

TimeShiftType parse_time_shift_type(const std::string& value, const std::string& origin);
const char* time_shift_type_name(TimeShiftType type);

} // namespace tuneframe::diffusion
