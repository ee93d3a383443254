#include "engine/diffusion/cogvideox_ddim_scheduler.h"

#include "engine/core/error.h"

#include <torch/torch.h>

namespace tuneframe::diffusion {

CogVideoXDDIMScheduler::CogVideoXDDIMScheduler(CogVideoXSchedulerConfig config)
    : schedule_(std::move(config)) {}

SchedulerStepOutput CogVideoXDDIMScheduler::step(const at::Tensor& model_output,
                                                 std::int64_t timestep,
                                                 const at::Tensor& sample) const {
    // Coefficients stay 0-dim float64 CPU tensors, as in diffusers, so each product rounds to
    // the sample's dtype exactly where the reference rounds.
    const at::Tensor alpha_prod_t = schedule_.alpha_at(timestep);
    const at::Tensor alpha_prod_t_prev = schedule_.alpha_at(schedule_.previous_timestep(timestep));
    at::Tensor pred_original = schedule_.predict_original(model_output, sample, alpha_prod_t);
    const at::Tensor a_t = ((1 - alpha_prod_t_prev) / (1 - alpha_prod_t)).pow(0.5);
    const at::Tensor b_t = alpha_prod_t_prev.pow(0.5) - alpha_prod_t.pow(0.5) * a_t;
    return {a_t * sample + b_t * pred_original, pred_original};
}

} // namespace tuneframe::diffusion
