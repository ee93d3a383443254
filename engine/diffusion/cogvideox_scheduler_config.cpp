#include "engine/diffusion/cogvideox_scheduler_config.h"

#include "engine/core/json_file.h"

namespace tuneframe::diffusion {
namespace {

template <typename Enum>
Enum parse_choice(const core::JsonFields& fields, const std::string& key, Enum fallback,
                  std::initializer_list<std::pair<const char*, Enum>> choices) {
    if (!fields.has(key)) {
        return fallback;
    }
    const std::string value = fields.required<std::string>(key);
    std::string known;
    for (const auto& [name, choice] : choices) {
        if (value == name) {
            return choice;
        }
        known += (known.empty() ? "" : ", ") + std::string(name);
    }
    throw core::Error(core::ErrorCode::Unsupported,
                      fields.origin() + ": \"" + key + "\" is \"" + value +
                          "\", which Tuneframe does not support.",
                      "Use one of: " + known + ".");
}

} // namespace

CogVideoXSchedulerConfig CogVideoXSchedulerConfig::from_json(const nlohmann::json& json,
                                                             const std::string& origin) {
    core::JsonFields fields(json, origin);
    CogVideoXSchedulerConfig config;
    config.num_train_timesteps = fields.optional<int>("num_train_timesteps", 1000);
    config.beta_start = fields.optional<double>("beta_start", config.beta_start);
    config.beta_end = fields.optional<double>("beta_end", config.beta_end);
    config.beta_schedule = parse_choice(
        fields, "beta_schedule", BetaSchedule::ScaledLinear,
        {{"linear", BetaSchedule::Linear}, {"scaled_linear", BetaSchedule::ScaledLinear}});
    config.prediction_type = parse_choice(fields, "prediction_type", PredictionType::Epsilon,
                                          {{"epsilon", PredictionType::Epsilon},
                                           {"sample", PredictionType::Sample},
                                           {"v_prediction", PredictionType::VPrediction}});
    config.timestep_spacing = parse_choice(fields, "timestep_spacing", TimestepSpacing::Leading,
                                           {{"linspace", TimestepSpacing::Linspace},
                                            {"leading", TimestepSpacing::Leading},
                                            {"trailing", TimestepSpacing::Trailing}});
    config.rescale_betas_zero_snr = fields.optional<bool>("rescale_betas_zero_snr", false);
    config.set_alpha_to_one = fields.optional<bool>("set_alpha_to_one", true);
    config.steps_offset = fields.optional<int>("steps_offset", 0);
    config.snr_shift_scale = fields.optional<double>("snr_shift_scale", 3.0);
    if (fields.has("trained_betas")) {
        throw core::Error(core::ErrorCode::Unsupported,
                          origin + ": \"trained_betas\" is not supported.",
                          "CogVideoX schedulers use scaled_linear betas; remove trained_betas.");
    }
    if (config.num_train_timesteps < 2) {
        throw core::Error(core::ErrorCode::BadInput,
                          origin + ": \"num_train_timesteps\" must be at least 2.",
                          "CogVideoX uses 1000.");
    }
    return config;
}

} // namespace tuneframe::diffusion
