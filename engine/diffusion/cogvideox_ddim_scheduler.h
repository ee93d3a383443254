#pragma once

#include "engine/diffusion/cogvideox_noise_schedule.h"

#include <ATen/Tensor.h>

namespace tuneframe::diffusion {

// CogVideoXDDIMScheduler: deterministic DDIM (eta ignored, no clipping), the default sampler of
// every CogVideoX pipeline.
class CogVideoXDDIMScheduler {
public:
    explicit CogVideoXDDIMScheduler(CogVideoXSchedulerConfig config);

    const CogVideoXNoiseSchedule& schedule() const { return schedule_; }
    // Must come before step(); returns the descending timesteps.
    const std::vector<std::int64_t>& set_timesteps(int steps) {
        return schedule_.set_timesteps(steps);
    }
    const std::vector<std::int64_t>& timesteps() const { return schedule_.timesteps(); }

    SchedulerStepOutput step(const at::Tensor& model_output, std::int64_t timestep,
                             const at::Tensor& sample) const;

private:
    CogVideoXNoiseSchedule schedule_;
};

} // namespace tuneframe::diffusion
