#pragma once

#include "engine/diffusion/flow_match_common.h"

#include <ATen/Tensor.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tuneframe::diffusion {

enum class UniPCSolverType { Invalid, Bh1, Bh2 };
enum class FinalSigmasType { Invalid, Zero, SigmaMin };

// scheduler/scheduler_config.json of a UniPCMultistepScheduler, in the flow-matching form the Wan
// checkpoints use (prediction_type "flow_prediction", use_flow_sigmas). The beta settings are
// read and kept for to_json but do not enter flow sigmas, as in diffusers. Settings that would
// take another path through the scheduler (other prediction types, VP or Karras sigmas,
// thresholding, solver_p) are BadInput errors naming the file and the field.
struct UniPCMultistepSchedulerConfig {
    int num_train_timesteps = 1000;
    double beta_start = 0.0001;
    double beta_end = 0.02;
    std::string beta_schedule = "linear";
    int solver_order = 2;
    bool predict_x0 = true;
    UniPCSolverType solver_type = UniPCSolverType::Bh2;
    bool lower_order_final = true;
    std::vector<std::int64_t> disable_corrector;
    double flow_shift = 1.0;
    std::string timestep_spacing = "linspace";
    int steps_offset = 0;
    FinalSigmasType final_sigmas_type = FinalSigmasType::Zero;
    bool use_dynamic_shifting = false;
    TimeShiftType time_shift_type = TimeShiftType::Exponential;
    std::optional<double> shift_terminal;

    static UniPCMultistepSchedulerConfig from_json(const nlohmann::json& json,
                                                   const std::string& origin);
    static UniPCMultistepSchedulerConfig from_file(const std::filesystem::path& path);
    nlohmann::json to_json() const;
};

// UniPCMultistepScheduler (Zhao et al. 2023) with flow sigmas: a multistep predictor (UniP) over
// the x0 predictions of the last solver_order steps, corrected (UniC) with the model output at
// the predicted point, on alpha = 1 - sigma, sigma = sigma. The coefficients are 0-dim float32
// tensors built with the reference's operations in its order, so the chain rounds where it does.
class UniPCMultistepScheduler {
public:
    explicit UniPCMultistepScheduler(UniPCMultistepSchedulerConfig config);

    const UniPCMultistepSchedulerConfig& config() const { return config_; }
    // `mu` is required with use_dynamic_shifting. Clears the step history.
    void set_timesteps(int steps, std::optional<double> mu = std::nullopt);
    // [n] int64 (sigma * N truncated) and [n + 1] float32 sigmas; undefined before set_timesteps.
    const at::Tensor& timesteps() const { return timesteps_; }
    const at::Tensor& sigmas() const { return sigmas_; }
    int num_inference_steps() const { return num_inference_steps_; }

    std::optional<std::int64_t> step_index() const { return step_index_; }
    std::optional<std::int64_t> begin_index() const { return begin_index_; }
    void set_begin_index(std::int64_t begin_index = 0) { begin_index_ = begin_index; }
    // The position of `timestep` in timesteps() (the second of several equal entries); a
    // timestep not in the schedule maps to the last position, as in diffusers.
    std::int64_t index_for_timestep(std::int64_t timestep) const;

    // One step from `sample` at `timestep` (one of timesteps()): corrects `sample` with this
    // model output when a previous step predicted it, then predicts the next sample. The
    // scheduler keeps the converted outputs of the last solver_order steps.
    at::Tensor step(const at::Tensor& model_output, std::int64_t timestep,
                    const at::Tensor& sample);

    // (1 - sigma) * original + sigma * noise at the sigma of each of `timesteps` [B] (or at the
    // begin / step index once those are set).
    at::Tensor add_noise(const at::Tensor& original, const at::Tensor& noise,
                         const at::Tensor& timesteps) const;

private:
    at::Tensor convert_model_output(const at::Tensor& model_output, const at::Tensor& sample) const;
    at::Tensor predict(const at::Tensor& sample, int order) const;
    // UniC: the sample the last step predicted, recomputed from `last_sample` with this step's
    // converted model output.
    at::Tensor correct(const at::Tensor& this_model_output, const at::Tensor& last_sample,
                       int order) const;
    // 0-dim float32 sigmas()[index].
    at::Tensor sigma_at(std::int64_t index) const;
    void check_ready() const;

    UniPCMultistepSchedulerConfig config_;
    at::Tensor timesteps_;
    at::Tensor sigmas_;
    int num_inference_steps_ = 0;
    // Oldest first; undefined where no step has filled them yet.
    std::vector<at::Tensor> model_outputs_;
    at::Tensor last_sample_;
    int lower_order_nums_ = 0;
    int this_order_ = 0;
    std::optional<std::int64_t> step_index_;
    std::optional<std::int64_t> begin_index_;
};

} // namespace tuneframe::diffusion
