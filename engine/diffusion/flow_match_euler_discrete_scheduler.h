#pragma once

#include "engine/diffusion/flow_match_common.h"

#include <ATen/Tensor.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace tuneframe::diffusion {

// scheduler/scheduler_config.json of a FlowMatchEulerDiscreteScheduler. Defaults are the class's
// own, so a config missing a key behaves as it does in diffusers.
struct FlowMatchEulerDiscreteSchedulerConfig {
    int num_train_timesteps = 1000;
    double shift = 1.0;
    bool use_dynamic_shifting = false;
    double base_shift = 0.5;
    double max_shift = 1.15;
    int base_image_seq_len = 256;
    int max_image_seq_len = 4096;
    bool invert_sigmas = false;
    std::optional<double> shift_terminal;
    bool use_karras_sigmas = false;
    bool use_exponential_sigmas = false;
    TimeShiftType time_shift_type = TimeShiftType::Exponential;
    bool stochastic_sampling = false;

    // `origin` names the file in errors. use_beta_sigmas (which needs scipy's beta quantiles),
    // unknown keys and contradictory settings are BadInput errors.
    static FlowMatchEulerDiscreteSchedulerConfig from_json(const nlohmann::json& json,
                                                           const std::string& origin);
    static FlowMatchEulerDiscreteSchedulerConfig from_file(const std::filesystem::path& path);
    nlohmann::json to_json() const;
};

// The training tables of a fresh FlowMatchEulerDiscreteScheduler: descending float32 sigmas
// shift(t / N) for t = N..1 (unshifted with dynamic shifting) and timesteps sigma * N.
struct FlowMatchTable {
    at::Tensor sigmas;    // [N] float32
    at::Tensor timesteps; // [N] float32
    int num_train_timesteps = 1000;

    // `shift` empty: the unshifted table (use_dynamic_shifting).
    static FlowMatchTable make(int num_train_timesteps, std::optional<double> shift);
};

// FlowMatchEulerDiscreteScheduler: the Euler step of a rectified-flow ODE, x += (sigma_next -
// sigma) * v, over sigmas that are shifted once in the training table and again in
// set_timesteps: diffusers spaces the inference sigmas between the shifted table's ends and then
// shifts them, and Tuneframe keeps that double shift so its samples match diffusers'.
class FlowMatchEulerDiscreteScheduler {
public:
    explicit FlowMatchEulerDiscreteScheduler(FlowMatchEulerDiscreteSchedulerConfig config);

    const FlowMatchEulerDiscreteSchedulerConfig& config() const { return config_; }
    // The table of the fresh scheduler, whatever set_timesteps did since.
    const FlowMatchTable& training_table() const { return table_; }
    // Before set_timesteps the training table; after it [n] float32 timesteps and [n + 1] float32
    // sigmas ending in 0 (1 with invert_sigmas).
    const at::Tensor& timesteps() const { return timesteps_; }
    const at::Tensor& sigmas() const { return sigmas_; }
    // The training table's ends, which set_timesteps spaces between.
    double sigma_min() const { return sigma_min_; }
    double sigma_max() const { return sigma_max_; }
    double shift() const { return shift_; }
    void set_shift(double shift) { shift_ = shift; }
    int num_inference_steps() const { return num_inference_steps_; }

    // `mu` is required with use_dynamic_shifting and ignored without. Resets the step and begin
    // indices.
    void set_timesteps(int steps, std::optional<double> mu = std::nullopt);

    std::optional<std::int64_t> step_index() const { return step_index_; }
    std::optional<std::int64_t> begin_index() const { return begin_index_; }
    void set_begin_index(std::int64_t begin_index = 0) { begin_index_ = begin_index; }
    // The position of `timestep` in timesteps(): the second of several equal entries, as
    // diffusers picks it. A timestep not in the schedule is a BadInput error.
    std::int64_t index_for_timestep(double timestep) const;

    // One Euler step from `sample` at `timestep` (one of timesteps()); the result has the model
    // output's dtype. `noise` (shaped like the sample) is required with stochastic_sampling.
    at::Tensor step(const at::Tensor& model_output, double timestep, const at::Tensor& sample,
                    const std::optional<at::Tensor>& noise = std::nullopt);

    // The forward process sigma * noise + (1 - sigma) * sample, sigma looked up per batch element
    // of `timesteps` [B] (or taken at the begin / step index once those are set, as diffusers
    // does for image-to-image).
    at::Tensor scale_noise(const at::Tensor& sample, const at::Tensor& timesteps,
                           const at::Tensor& noise) const;

private:
    FlowMatchEulerDiscreteSchedulerConfig config_;
    FlowMatchTable table_;
    at::Tensor timesteps_;
    at::Tensor sigmas_;
    double sigma_min_ = 0;
    double sigma_max_ = 1;
    double shift_ = 1;
    int num_inference_steps_ = 0;
    std::optional<std::int64_t> step_index_;
    std::optional<std::int64_t> begin_index_;
};

} // namespace tuneframe::diffusion
