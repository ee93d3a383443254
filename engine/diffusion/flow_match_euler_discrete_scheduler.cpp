#include "engine/diffusion/flow_match_euler_discrete_scheduler.h"

#include "engine/core/error.h"
#include "engine/core/json_file.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::diffusion {
namespace {

constexpr double kKarrasRho = 7.0;

// EulerDiscreteScheduler's Karras spacing between the ends of `sigmas` (rho 7).
std::vector<double> karras_sigmas(const std::vector<double>& sigmas, int steps) {
    const double min_inv_rho = std::pow(sigmas.back(), 1 / kKarrasRho);
    const double max_inv_rho = std::pow(sigmas.front(), 1 / kKarrasRho);
    std::vector<double> result = numpy_linspace(0, 1, steps);
    for (double& ramp : result) {
        ramp = std::pow(max_inv_rho + ramp * (min_inv_rho - max_inv_rho), kKarrasRho);
    }
    return result;
}

// Log-uniform spacing between the ends of `sigmas`.
std::vector<double> exponential_sigmas(const std::vector<double>& sigmas, int steps) {
    std::vector<double> result =
        numpy_linspace(std::log(sigmas.front()), std::log(sigmas.back()), steps);
    for (double& value : result) {
        value = std::exp(value);
    }
    return result;
}

at::Tensor to_float_tensor(const std::vector<double>& values) {
    return torch::tensor(values, torch::kFloat64).to(torch::kFloat32);
}

void check_steps(int steps) {
    if (steps < 1) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The number of sampling steps must be at least 1, not " +
                              std::to_string(steps) + ".",
                          "Choose a step count such as 50.");
    }
}

} // namespace

FlowMatchEulerDiscreteSchedulerConfig
FlowMatchEulerDiscreteSchedulerConfig::from_json(const nlohmann::json& json,
                                                 const std::string& origin) {
    check_known_keys(json, origin,
                     {"num_train_timesteps", "shift", "use_dynamic_shifting", "base_shift",
                      "max_shift", "base_image_seq_len", "max_image_seq_len", "invert_sigmas",
                      "shift_terminal", "use_karras_sigmas", "use_exponential_sigmas",
                      "use_beta_sigmas", "time_shift_type", "stochastic_sampling"});
    core::JsonFields fields(json, origin);
    FlowMatchEulerDiscreteSchedulerConfig config;
    config.num_train_timesteps = fields.optional<int>("num_train_timesteps", 1000);
    config.shift = fields.optional<double>("shift", config.shift);
    config.use_dynamic_shifting = fields.optional<bool>("use_dynamic_shifting", false);
    config.base_shift = fields.optional<double>("base_shift", config.base_shift);
    config.max_shift = fields.optional<double>("max_shift", config.max_shift);
    config.base_image_seq_len = fields.optional<int>("base_image_seq_len", 256);
    config.max_image_seq_len = fields.optional<int>("max_image_seq_len", 4096);
    config.invert_sigmas = fields.optional<bool>("invert_sigmas", false);
    config.shift_terminal = fields.maybe<double>("shift_terminal");
    config.use_karras_sigmas = fields.optional<bool>("use_karras_sigmas", false);
    config.use_exponential_sigmas = fields.optional<bool>("use_exponential_sigmas", false);
    config.time_shift_type = parse_time_shift_type(
        fields.optional<std::string>("time_shift_type", "exponential"), origin);
    config.stochastic_sampling = fields.optional<bool>("stochastic_sampling", false);

    if (fields.optional<bool>("use_beta_sigmas", false)) {
        unsupported_setting(origin, "use_beta_sigmas", "is true; Tuneframe has no beta sigmas.",
                            "Set \"use_beta_sigmas\" to false.");
    }
    if (config.use_karras_sigmas && config.use_exponential_sigmas) {
        unsupported_setting(origin, "use_exponential_sigmas",
                            "is true together with \"use_karras_sigmas\".",
                            "Keep at most one of them true.");
    }
    if (config.num_train_timesteps < 2) {
        unsupported_setting(origin, "num_train_timesteps", "must be at least 2.", "Wan uses 1000.");
    }
    if (!(config.shift > 0)) {
        unsupported_setting(origin, "shift", "must be positive.", "Wan uses 1 to 12.");
    }
    if (config.shift_terminal && *config.shift_terminal >= 1) {
        unsupported_setting(origin, "shift_terminal", "must be below 1.",
                            "Remove it or set it to null.");
    }
    return config;
}

FlowMatchEulerDiscreteSchedulerConfig
FlowMatchEulerDiscreteSchedulerConfig::from_file(const std::filesystem::path& path) {
    return from_json(core::read_json_file(path), path.string());
}

nlohmann::json FlowMatchEulerDiscreteSchedulerConfig::to_json() const {
    return {{"_class_name", "FlowMatchEulerDiscreteScheduler"},
            {"num_train_timesteps", num_train_timesteps},
            {"shift", shift},
            {"use_dynamic_shifting", use_dynamic_shifting},
            {"base_shift", base_shift},
            {"max_shift", max_shift},
            {"base_image_seq_len", base_image_seq_len},
            {"max_image_seq_len", max_image_seq_len},
            {"invert_sigmas", invert_sigmas},
            {"shift_terminal", shift_terminal ? nlohmann::json(*shift_terminal) : nullptr},
            {"use_karras_sigmas", use_karras_sigmas},
            {"use_exponential_sigmas", use_exponential_sigmas},
            {"use_beta_sigmas", false},
            {"time_shift_type", time_shift_type_name(time_shift_type)},
            {"stochastic_sampling", stochastic_sampling}};
}

FlowMatchTable FlowMatchTable::make(int num_train_timesteps, std::optional<double> shift) {
    // Integers N..1 are exact in float32, so arange equals numpy's float32 linspace reversed.
    const at::Tensor steps = torch::arange(num_train_timesteps, 0, -1, torch::kFloat32);
    at::Tensor sigmas = steps / num_train_timesteps;
    if (shift) {
        sigmas = *shift * sigmas / (1 + (*shift - 1) * sigmas);
    }
    return {sigmas, sigmas * num_train_timesteps, num_train_timesteps};
}

FlowMatchEulerDiscreteScheduler::FlowMatchEulerDiscreteScheduler(
    FlowMatchEulerDiscreteSchedulerConfig config)
    : config_(std::move(config))
    , table_(FlowMatchTable::make(
          config_.num_train_timesteps,
          config_.use_dynamic_shifting ? std::nullopt : std::optional<double>(config_.shift)))
    , timesteps_(table_.timesteps)
    , sigmas_(table_.sigmas)
    , sigma_min_(table_.sigmas[-1].item<double>())
    , sigma_max_(table_.sigmas[0].item<double>())
    , shift_(config_.shift) {}

void FlowMatchEulerDiscreteScheduler::set_timesteps(int steps, std::optional<double> mu) {
    check_steps(steps);
    if (config_.use_dynamic_shifting && !mu) {
        throw core::Error(core::ErrorCode::Internal,
                          "set_timesteps needs mu with use_dynamic_shifting");
    }
    const int total = config_.num_train_timesteps;
    std::vector<double> sigmas = numpy_linspace(sigma_max_ * total, sigma_min_ * total, steps);
    for (double& sigma : sigmas) {
        sigma = sigma / total;
    }
    sigmas = config_.use_dynamic_shifting
                 ? time_shift(std::move(sigmas), *mu, config_.time_shift_type)
                 : shift_sigmas(std::move(sigmas), shift_);
    // diffusers tests the value's truth, so a terminal of 0 does nothing.
    if (config_.shift_terminal && *config_.shift_terminal != 0) {
        sigmas = stretch_to_terminal(std::move(sigmas), *config_.shift_terminal);
    }
    if (config_.use_karras_sigmas) {
        sigmas = karras_sigmas(sigmas, steps);
    } else if (config_.use_exponential_sigmas) {
        sigmas = exponential_sigmas(sigmas, steps);
    }

    at::Tensor table = to_float_tensor(sigmas);
    at::Tensor timesteps = table * total;
    if (config_.invert_sigmas) {
        table = 1.0 - table;
        timesteps = table * total;
        table = torch::cat({table, torch::ones({1}, torch::kFloat32)});
    } else {
        table = torch::cat({table, torch::zeros({1}, torch::kFloat32)});
    }
    timesteps_ = timesteps;
    sigmas_ = table;
    num_inference_steps_ = steps;
    step_index_.reset();
    begin_index_.reset();
}

std::int64_t FlowMatchEulerDiscreteScheduler::index_for_timestep(double timestep) const {
    // The comparison happens in float32, as torch compares a float32 table with a scalar.
    const auto target = static_cast<float>(timestep);
    const at::Tensor table = timesteps_.contiguous();
    const float* values = table.data_ptr<float>();
    std::vector<std::int64_t> matches;
    for (std::int64_t i = 0; i < table.numel() && matches.size() < 2; ++i) {
        if (values[i] == target) {
            matches.push_back(i);
        }
    }
    if (matches.empty()) {
        throw core::Error(core::ErrorCode::BadInput,
                          "Timestep " + std::to_string(timestep) +
                              " is not one of the scheduler's timesteps.",
                          "Step with the timesteps set_timesteps returned.");
    }
    return matches.size() > 1 ? matches[1] : matches[0];
}

at::Tensor FlowMatchEulerDiscreteScheduler::step(const at::Tensor& model_output, double timestep,
                                                 const at::Tensor& sample,
                                                 const std::optional<at::Tensor>& noise) {
    if (!step_index_) {
        step_index_ = begin_index_ ? *begin_index_ : index_for_timestep(timestep);
    }
    const std::int64_t index = *step_index_;
    if (index < 0 || index + 1 >= sigmas_.size(0)) {
        throw core::Error(core::ErrorCode::Internal, "Euler step past the end of the schedule");
    }
    // The step runs in float32 whatever the model's dtype.
    const at::Tensor upcast = sample.to(torch::kFloat32);
    const at::Tensor sigma = sigmas_[index];
    const at::Tensor sigma_next = sigmas_[index + 1];
    at::Tensor prev_sample;
    if (config_.stochastic_sampling) {
        if (!noise) {
            throw core::Error(core::ErrorCode::Internal, "stochastic Euler step without noise");
        }
        const at::Tensor x0 = upcast - sigma * model_output;
        prev_sample = (1.0 - sigma_next) * x0 + sigma_next * noise->to(upcast.scalar_type());
    } else {
        const at::Tensor dt = sigma_next - sigma;
        prev_sample = upcast + dt * model_output;
    }
    step_index_ = index + 1;
    return prev_sample.to(model_output.scalar_type());
}

at::Tensor FlowMatchEulerDiscreteScheduler::scale_noise(const at::Tensor& sample,
                                                        const at::Tensor& timesteps,
                                                        const at::Tensor& noise) const {
    const at::Tensor table = sigmas_.to(sample.device(), sample.scalar_type());
    const at::Tensor flat = timesteps.detach().to(torch::kCPU, torch::kFloat64).flatten();
    std::vector<std::int64_t> indices;
    for (std::int64_t i = 0; i < flat.size(0); ++i) {
        if (!begin_index_) {
            indices.push_back(index_for_timestep(flat[i].item<double>()));
        } else {
            indices.push_back(step_index_ ? *step_index_ : *begin_index_);
        }
    }
    at::Tensor sigma =
        table.index_select(0, torch::tensor(indices, torch::kLong).to(sample.device()));
    while (sigma.dim() < sample.dim()) {
        sigma = sigma.unsqueeze(-1);
    }
    return sigma * noise + (1.0 - sigma) * sample;
}

} // namespace tuneframe::diffusion
