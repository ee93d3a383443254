#include "engine/diffusion/cogvideox_dpm_scheduler.h"

#include "engine/core/error.h"

#include <torch/torch.h>

namespace tuneframe::diffusion {
namespace {

// log-SNR / 2: infinite at the ends of the schedule, which the formulas below rely on.
at::Tensor half_log_snr(const at::Tensor& alpha) {
    return (alpha / (1 - alpha)).pow(0.5).log();
}

} // namespace

CogVideoXDPMScheduler::CogVideoXDPMScheduler(CogVideoXSchedulerConfig config)
    : schedule_(std::move(config)) {}

SchedulerStepOutput CogVideoXDPMScheduler::step(const at::Tensor& model_output,
                                                const std::optional<at::Tensor>& old_pred_original,
                                                std::int64_t timestep,
                                                std::optional<std::int64_t> timestep_back,
                                                const at::Tensor& sample,
                                                const NoiseSource& noise) const {
    const std::int64_t prev_timestep = schedule_.previous_timestep(timestep);
    const at::Tensor alpha_prod_t = schedule_.alpha_at(timestep);
    const at::Tensor alpha_prod_t_prev = schedule_.alpha_at(prev_timestep);
    at::Tensor pred_original = schedule_.predict_original(model_output, sample, alpha_prod_t);

    const at::Tensor lambda = half_log_snr(alpha_prod_t);
    const at::Tensor h = half_log_snr(alpha_prod_t_prev) - lambda;
    const at::Tensor mult1 = ((1 - alpha_prod_t_prev) / (1 - alpha_prod_t)).pow(0.5) * (-h).exp();
    const at::Tensor mult2 = (-2 * h).expm1() * alpha_prod_t_prev.pow(0.5);
    const at::Tensor mult_noise = (1 - alpha_prod_t_prev).pow(0.5) * (1 - (-2 * h).exp()).pow(0.5);

    at::Tensor prev_sample = mult1 * sample - mult2 * pred_original + mult_noise * noise(sample);
    if (!old_pred_original || prev_timestep < 0) {
        return {prev_sample, pred_original};
    }
    if (!timestep_back) {
        throw core::Error(core::ErrorCode::Internal,
                          "DPM second-order step without the previous timestep");
    }
    const at::Tensor h_last = lambda - half_log_snr(schedule_.alpha_at(*timestep_back));
    const at::Tensor r = h_last / h;
    const at::Tensor mult3 = 1 + 1 / (2 * r);
    const at::Tensor mult4 = 1 / (2 * r);
    const at::Tensor denoised = mult3 * pred_original - mult4 * *old_pred_original;
    prev_sample = mult1 * sample - mult2 * denoised + mult_noise * noise(sample);
    return {prev_sample, pred_original};
}

} // namespace tuneframe::diffusion
