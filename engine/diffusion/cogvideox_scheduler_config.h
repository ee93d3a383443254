#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tuneframe::diffusion {

enum class PredictionType { Invalid, Epsilon, Sample, VPrediction };
enum class TimestepSpacing { Invalid, Linspace, Leading, Trailing };
enum class BetaSchedule { Invalid, Linear, ScaledLinear };

// scheduler/scheduler_config.json of a CogVideoX pipeline; both the DDIM and the DPM scheduler
// read it. Defaults are the scheduler classes' own, so an older config missing a key behaves as
// it does in diffusers.
struct CogVideoXSchedulerConfig {
    int num_train_timesteps = 1000;
    double beta_start = 0.00085;
    double beta_end = 0.012;
    BetaSchedule beta_schedule = BetaSchedule::ScaledLinear;
    PredictionType prediction_type = PredictionType::Epsilon;
    TimestepSpacing timestep_spacing = TimestepSpacing::Leading;
    bool rescale_betas_zero_snr = false;
    bool set_alpha_to_one = true;
    int steps_offset = 0;
    double snr_shift_scale = 3.0;

    // `origin` names the file in errors (unknown spacing, prediction type or beta schedule).
    static CogVideoXSchedulerConfig from_json(const nlohmann::json& json,
                                              const std::string& origin);
};

} // namespace tuneframe::diffusion
