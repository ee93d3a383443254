#pragma once

#include "engine/diffusion/flow_match_euler_discrete_scheduler.h"
#include "engine/diffusion/unipc_multistep_scheduler.h"
#include "engine/models/wan/wan_pipeline_folder.h"

#include <ATen/Tensor.h>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tuneframe::models::wan {

// The scheduler a Wan pipeline steps with: the folder's own (UniPCMultistepScheduler, as the
// Wan checkpoints ship, or FlowMatchEulerDiscreteScheduler), or the other one built from the
// folder's shift, as `pipe.scheduler = X.from_config(...)` swaps it in diffusers.
class WanScheduler {
public:
    // "unipc" and "euler", the names requests choose by.
    static const std::vector<std::string>& names();

    // `choice` empty takes the folder's scheduler; another name than names() is a BadInput error
    // naming them. `flow_shift` replaces the config's shift (UniPC's flow_shift, Euler's shift).
    WanScheduler(const WanPipelineFolder& folder, const std::string& choice,
                 std::optional<double> flow_shift);

    const std::string& name() const { return name_; }
    int num_train_timesteps() const;

    // Also clears the step history. `from_first_step` fixes the step index at 0 as WanPipeline
    // does (set_begin_index(0)); WanImageToVideoPipeline looks each timestep up instead.
    void set_timesteps(int steps, bool from_first_step);
    // [n] int64 (UniPC) or float32 (Euler), and [n + 1] float32 sigmas.
    const at::Tensor& timesteps() const;
    const at::Tensor& sigmas() const;
    std::size_t size() const { return static_cast<std::size_t>(timesteps().numel()); }
    // timesteps()[index] as a 0-dim tensor of its dtype (what diffusers' loop variable `t` is).
    at::Tensor timestep(std::size_t index) const;

    // One step from `latents` with the model's (guided) prediction at timesteps()[index];
    // float32 latents back.
    at::Tensor step(const at::Tensor& prediction, std::size_t index, const at::Tensor& latents);

private:
    using Scheduler = std::variant<diffusion::UniPCMultistepScheduler,
                                   diffusion::FlowMatchEulerDiscreteScheduler>;
    static Scheduler make(const WanPipelineFolder& folder, const std::string& name,
                          std::optional<double> flow_shift);

    std::string name_;
    Scheduler scheduler_;
};

} // namespace tuneframe::models::wan
