#pragma once

#include "engine/diffusion/flow_match_euler_discrete_scheduler.h"

#include <ATen/Tensor.h>

#include <optional>
#include <string>

namespace tuneframe::diffusion {

// The flow-matching training computation of Wan fine-tuning: which sigma (noise level) and
// timestep each sample trains at, x_t = (1 - sigma) x0 + sigma noise, the target noise - x0, and
// the weighted MSE. Nothing here draws random numbers: callers pass the draws (uniform in [0, 1),
// or standard normal for logit-normal densities) from the engine's keyed generators, so a
// sample's sigma depends only on its key, never on the batch split or the world size.

// How the draw u that picks a sigma is distributed: diffusers' compute_density_for_timestep_
// sampling weighting_scheme ("none"/"uniform", "logit_normal", "mode").
enum class TimestepDensity { Invalid, Uniform, LogitNormal, Mode };

// How u becomes a sigma and the timestep the transformer sees.
enum class SigmaSource {
    Invalid,
    // finetrainers: the shifted training table's row long(u N), timestep long(sigma N) (int64).
    Finetrainers,
    // diffusers' training examples: the same row, with the table's float timestep.
    Diffusers,
    // sigma = shift u / (1 + (shift - 1) u), timestep sigma N (float). Note u -> sigma rises
    // here while the table's row long(u N) holds roughly shift(1 - u).
    Direct,
};

// Wan 2.2 A14B's two experts split the timesteps at boundary_ratio * num_train_timesteps (875
// for T2V, 900 for I2V): the high-noise expert denoises timesteps at or above it, the low-noise
// expert those below, as WanPipeline routes them.
enum class NoiseExpert { High, Low };

struct ExpertWindow {
    NoiseExpert expert = NoiseExpert::High;
    double boundary_timestep = 875;

    static ExpertWindow from_boundary_ratio(NoiseExpert expert, double boundary_ratio,
                                            int num_train_timesteps);
    bool contains(double timestep) const;
};

struct FlowMatchingSampling {
    SigmaSource source = SigmaSource::Finetrainers;
    TimestepDensity density = TimestepDensity::Uniform;
    double shift = 1.0;
    int num_train_timesteps = 1000;
    double logit_mean = 0.0;
    double logit_std = 1.0;
    double mode_scale = 1.29;
    // Set when training one Wan 2.2 expert: every draw lands in its window.
    std::optional<ExpertWindow> window;
};

// One batch's training sigmas, all [B] on the CPU.
struct TrainingTimesteps {
    at::Tensor u;         // float32: the density's u (after the window's rescaling)
    at::Tensor indices;   // int64 table rows; undefined for SigmaSource::Direct
    at::Tensor sigmas;    // float32
    at::Tensor timesteps; // int64 for Finetrainers, float32 otherwise
};

// Draws training sigmas. With an expert window the draw is not rejected and redrawn (which
// would make the number of draws depend on luck): its quantile is rescaled into the part of
// [0, 1) whose sigmas fall in the window, so the result follows the full distribution restricted
// to the window, its shape kept. That is diffusion-pipe's min_t / max_t (a quantile table of the
// shifted distribution sliced to the window, then indexed uniformly) in continuous form, and
// the distribution musubi-tuner's --preserve_distribution_shape reaches by rejection; musubi's
// default instead maps the drawn sigma affinely onto [min_timestep, max_timestep], which
// changes the shape.
class FlowMatchingTimestepSampler {
public:
    explicit FlowMatchingTimestepSampler(FlowMatchingSampling sampling);

    const FlowMatchingSampling& sampling() const { return sampling_; }
    // The shifted training table (a fresh FlowMatchEulerDiscreteScheduler(shift)'s).
    const FlowMatchTable& table() const { return table_; }

    // `draws` [B]: uniform in [0, 1), or standard normal for TimestepDensity::LogitNormal.
    TrainingTimesteps sample(const at::Tensor& draws) const;

private:
    at::Tensor density_u(const at::Tensor& draws) const;
    TrainingTimesteps from_u(const at::Tensor& u) const;
    at::Tensor window_draws(const at::Tensor& draws) const;
    void clamp_to_window(TrainingTimesteps& result) const;
    // The rows [first, last) of the table whose timesteps lie in the window.
    std::pair<std::int64_t, std::int64_t> window_rows() const;

    FlowMatchingSampling sampling_;
    FlowMatchTable table_;
};

// `field` names the setting in errors ("flow_matching.density").
TimestepDensity parse_timestep_density(const std::string& name, const std::string& field);
SigmaSource parse_sigma_source(const std::string& name, const std::string& field);

// x_t = (1 - sigma) x0 + sigma noise with one sigma per batch element (`sigmas` [B]).
at::Tensor flow_matching_noisy_input(const at::Tensor& x0, const at::Tensor& noise,
                                     const at::Tensor& sigmas);
// The velocity the transformer learns: noise - x0.
at::Tensor flow_matching_target(const at::Tensor& x0, const at::Tensor& noise);

// compute_loss_weighting_for_sd3's schemes.
enum class LossWeighting { Invalid, None, SigmaSqrt, CosMap };
LossWeighting parse_loss_weighting(const std::string& name, const std::string& field);
// [B] float32 weights for `sigmas` [B]: 1, sigma^-2, or 2 / (pi (1 - 2 sigma + 2 sigma^2)).
at::Tensor loss_weighting(LossWeighting weighting, const at::Tensor& sigmas);

struct FlowMatchingLoss {
    at::Tensor loss_per_sample; // [B] float32: mean over every non-batch dim
    at::Tensor loss;            // 0-dim float32: mean over the batch
};
// The weighted MSE in float32, as diffusers' and finetrainers' trainers compute it; `weights`
// [B].
FlowMatchingLoss flow_matching_loss(const at::Tensor& model_pred, const at::Tensor& target,
                                    const at::Tensor& weights);

} // namespace tuneframe::diffusion
