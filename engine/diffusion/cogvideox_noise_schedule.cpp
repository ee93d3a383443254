#include "engine/diffusion/cogvideox_noise_schedule.h"

#include "engine/core/error.h"

#include <torch/torch.h>

#include <cmath>

namespace tuneframe::diffusion {
namespace {

at::Tensor make_betas(const CogVideoXSchedulerConfig& config) {
    const auto options = torch::TensorOptions().dtype(torch::kFloat64);
    if (config.beta_schedule == BetaSchedule::Linear) {
        // diffusers builds the linear schedule in float32 and widens it later.
        return torch::linspace(config.beta_start, config.beta_end, config.num_train_timesteps,
                               torch::kFloat32)
            .to(torch::kFloat64);
    }
    return torch::linspace(std::sqrt(config.beta_start), std::sqrt(config.beta_end),
                           config.num_train_timesteps, options)
        .pow(2);
}

// Rescales so the last timestep has zero SNR while the first keeps its value (Lin et al. 2023).
at::Tensor rescale_zero_terminal_snr(const at::Tensor& alphas_cumprod) {
    at::Tensor root = alphas_cumprod.sqrt();
    at::Tensor first = root[0].clone();
    at::Tensor last = root[-1].clone();
    root -= last;
    root *= first / (first - last);
    return root.pow(2);
}

} // namespace

CogVideoXNoiseSchedule::CogVideoXNoiseSchedule(CogVideoXSchedulerConfig config)
    : config_(std::move(config)) {
    at::Tensor alphas = 1.0 - make_betas(config_);
    at::Tensor cumulative = torch::cumprod(alphas, 0);
    // The SNR shift of CogVideoX (SNR divided by snr_shift_scale) comes before the rescale.
    const double k = config_.snr_shift_scale;
    cumulative = cumulative / (k + (1.0 - k) * cumulative);
    if (config_.rescale_betas_zero_snr) {
        cumulative = rescale_zero_terminal_snr(cumulative);
    }
    alphas_cumprod_ = cumulative;
    final_alpha_cumprod_ =
        config_.set_alpha_to_one ? torch::tensor(1.0f) : alphas_cumprod_[0].to(torch::kFloat32);
}

const std::vector<std::int64_t>& CogVideoXNoiseSchedule::set_timesteps(int steps) {
    const int total = config_.num_train_timesteps;
    if (steps < 1 || steps > total) {
        throw core::Error(core::ErrorCode::BadInput,
                          "The number of sampling steps must be between 1 and " +
                              std::to_string(total) + ", not " + std::to_string(steps) + ".",
                          "Choose a step count such as 50.");
    }
    std::vector<std::int64_t> result;
    switch (config_.timestep_spacing) {
    case TimestepSpacing::Linspace:
        for (int i = steps - 1; i >= 0; --i) {
            // numpy.linspace: i * step, with step = (stop - start) / (num - 1).
            const double step = steps == 1 ? 0.0 : (total - 1.0) / (steps - 1);
            const double value = i * step;
            result.push_back(static_cast<std::int64_t>(std::nearbyint(value)));
        }
        break;
    case TimestepSpacing::Leading: {
        const int ratio = total / steps;
        for (int i = steps - 1; i >= 0; --i) {
            result.push_back(static_cast<std::int64_t>(i) * ratio + config_.steps_offset);
        }
        break;
    }
    case TimestepSpacing::Trailing: {
        // numpy: round(arange(total, 0, -total/steps)) - 1, where arange's i-th value is
        // start + i * step and round is half-to-even (nearbyint's default mode).
        const double step = -static_cast<double>(total) / steps;
        const auto count = static_cast<int>(std::ceil((0.0 - total) / step));
        for (int i = 0; i < count; ++i) {
            const double value = total + i * step;
            result.push_back(static_cast<std::int64_t>(std::nearbyint(value)) - 1);
        }
        break;
    }
    case TimestepSpacing::Invalid:
        throw core::Error(core::ErrorCode::Internal, "scheduler has no timestep spacing");
    }
    steps_ = steps;
    timesteps_ = std::move(result);
    return timesteps_;
}

std::int64_t CogVideoXNoiseSchedule::previous_timestep(std::int64_t timestep) const {
    if (steps_ == 0) {
        throw core::Error(core::ErrorCode::Internal, "scheduler step before set_timesteps()");
    }
    return timestep - config_.num_train_timesteps / steps_;
}

void CogVideoXNoiseSchedule::check_timestep(std::int64_t timestep) const {
    if (timestep >= config_.num_train_timesteps) {
        throw core::Error(core::ErrorCode::BadInput,
                          "Timestep " + std::to_string(timestep) + " is outside the schedule of " +
                              std::to_string(config_.num_train_timesteps) + " steps.");
    }
}

at::Tensor CogVideoXNoiseSchedule::alpha_at(std::int64_t timestep) const {
    check_timestep(timestep);
    return timestep >= 0 ? alphas_cumprod_[timestep] : final_alpha_cumprod_;
}

std::pair<at::Tensor, at::Tensor>
CogVideoXNoiseSchedule::forward_coefficients(const at::Tensor& like,
                                             const at::Tensor& timesteps) const {
    // As diffusers: the table is cast to the sample's dtype before indexing and the square root.
    at::Tensor table = alphas_cumprod_.to(like.device(), like.scalar_type());
    at::Tensor indices = timesteps.to(like.device(), torch::kLong).flatten();
    if (indices.numel() > 0 &&
        (indices.min().item<std::int64_t>() < 0 ||
         indices.max().item<std::int64_t>() >= config_.num_train_timesteps)) {
        throw core::Error(core::ErrorCode::BadInput, "A timestep is outside the noise schedule.");
    }
    at::Tensor alpha = table.index_select(0, indices);
    std::vector<std::int64_t> shape(static_cast<std::size_t>(like.dim()), 1);
    shape[0] = -1;
    return {alpha.pow(0.5).view(shape), (1 - alpha).pow(0.5).view(shape)};
}

at::Tensor CogVideoXNoiseSchedule::add_noise(const at::Tensor& original, const at::Tensor& noise,
                                             const at::Tensor& timesteps) const {
    auto [signal, noise_scale] = forward_coefficients(original, timesteps);
    return signal * original + noise_scale * noise;
}

at::Tensor CogVideoXNoiseSchedule::get_velocity(const at::Tensor& sample, const at::Tensor& noise,
                                                const at::Tensor& timesteps) const {
    auto [signal, noise_scale] = forward_coefficients(sample, timesteps);
    return signal * noise - noise_scale * sample;
}

at::Tensor CogVideoXNoiseSchedule::predict_original(const at::Tensor& model_output,
                                                    const at::Tensor& sample,
                                                    const at::Tensor& alpha_prod_t) const {
    const at::Tensor beta_prod_t = 1 - alpha_prod_t;
    switch (config_.prediction_type) {
    case PredictionType::Epsilon:
        return (sample - beta_prod_t.pow(0.5) * model_output) / alpha_prod_t.pow(0.5);
    case PredictionType::Sample:
        return model_output;
    case PredictionType::VPrediction:
        return alpha_prod_t.pow(0.5) * sample - beta_prod_t.pow(0.5) * model_output;
    case PredictionType::Invalid:
        break;
    }
    throw core::Error(core::ErrorCode::Internal, "scheduler has no prediction type");
}

} // namespace tuneframe::diffusion
