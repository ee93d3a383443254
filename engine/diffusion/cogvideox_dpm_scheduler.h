#pragma once

#include "engine/diffusion/cogvideox_noise_schedule.h"

#include <ATen/Tensor.h>

#include <functional>
#include <optional>

namespace tuneframe::diffusion {

// Draws standard-normal noise shaped, typed and placed like its argument. The sampler passes a
// seeded generator; tests pass the noise the reference recorded.
using NoiseSource = std::function<at::Tensor(const at::Tensor& like)>;

// CogVideoXDPMScheduler: a stochastic second-order DPM-Solver++ step that reuses the previous
// step's x0 prediction. Every call draws noise once; calls that take the second-order branch
// draw a second time and use only that draw, as the reference does, so seeded runs consume the
// generator identically.
class CogVideoXDPMScheduler {
public:
    explicit CogVideoXDPMScheduler(CogVideoXSchedulerConfig config);

    const CogVideoXNoiseSchedule& schedule() const { return schedule_; }
    const std::vector<std::int64_t>& set_timesteps(int steps) {
        return schedule_.set_timesteps(steps);
    }
    const std::vector<std::int64_t>& timesteps() const { return schedule_.timesteps(); }

    // `old_pred_original` is the previous call's pred_original_sample (none at the first step);
    // `timestep_back` is the previous scheduled timestep (none at the first step).
    SchedulerStepOutput step(const at::Tensor& model_output,
                             const std::optional<at::Tensor>& old_pred_original,
                             std::int64_t timestep, std::optional<std::int64_t> timestep_back,
                             const at::Tensor& sample, const NoiseSource& noise) const;

private:
    CogVideoXNoiseSchedule schedule_;
};

} // namespace tuneframe::diffusion
