#pragma once

#include "engine/diffusion/cogvideox_scheduler_config.h"

#include <ATen/Tensor.h>

#include <cstdint>
#include <vector>

namespace tuneframe::diffusion {

struct SchedulerStepOutput {
    at::Tensor prev_sample;
    at::Tensor pred_original_sample;
};

// What the CogVideoX DDIM and DPM schedulers share: the cumulative alphas (scaled-linear betas,
// the SNR shift, then the zero-terminal-SNR rescale, all in float64), the inference timesteps,
// and the forward process (add_noise, get_velocity) that training uses.
class CogVideoXNoiseSchedule {
public:
    explicit CogVideoXNoiseSchedule(CogVideoXSchedulerConfig config);

    const CogVideoXSchedulerConfig& config() const { return config_; }
    // [num_train_timesteps] float64, on the CPU.
    const at::Tensor& alphas_cumprod() const { return alphas_cumprod_; }
    // 0-dim float32 1.0 (set_alpha_to_one) or alphas_cumprod[0], as diffusers keeps it.
    const at::Tensor& final_alpha_cumprod() const { return final_alpha_cumprod_; }
    static constexpr double init_noise_sigma() { return 1.0; }

    // Chooses the descending timesteps for `steps` inference steps, by the config's spacing.
    const std::vector<std::int64_t>& set_timesteps(int steps);
    const std::vector<std::int64_t>& timesteps() const { return timesteps_; }
    int inference_steps() const { return steps_; }
    // t - num_train_timesteps / steps: what a step treats as the next timestep, whatever the
    // spacing (with trailing spacing and steps not dividing 1000 this is not the next entry of
    // timesteps(); diffusers does the same). Throws before set_timesteps().
    std::int64_t previous_timestep(std::int64_t timestep) const;
    // 0-dim: alphas_cumprod[t], or final_alpha_cumprod for t < 0.
    at::Tensor alpha_at(std::int64_t timestep) const;

    // sqrt(a_t) x0 + sqrt(1 - a_t) noise, with a_t in the sample's dtype; `timesteps` holds one
    // timestep per batch element.
    at::Tensor add_noise(const at::Tensor& original, const at::Tensor& noise,
                         const at::Tensor& timesteps) const;
    // sqrt(a_t) noise - sqrt(1 - a_t) sample: the v-prediction target.
    at::Tensor get_velocity(const at::Tensor& sample, const at::Tensor& noise,
                            const at::Tensor& timesteps) const;

    // x0 from the model output at timestep t, by the config's prediction type.
    at::Tensor predict_original(const at::Tensor& model_output, const at::Tensor& sample,
                                const at::Tensor& alpha_prod_t) const;

private:
    // sqrt(a_t) and sqrt(1 - a_t) per batch element, shaped to broadcast over `like`.
    std::pair<at::Tensor, at::Tensor> forward_coefficients(const at::Tensor& like,
                                                           const at::Tensor& timesteps) const;
    void check_timestep(std::int64_t timestep) const;

    CogVideoXSchedulerConfig config_;
    int steps_ = 0;
    std::vector<std::int64_t> timesteps_;
    at::Tensor alphas_cumprod_;
    at::Tensor final_alpha_cumprod_;
};

} // namespace tuneframe::diffusion
