#pragma once

#include "engine/core/tensor_io.h"

#include <ATen/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tuneframe::train {

// Trainable parameters under the model's names, in named_parameters() order. The tensors are
// the model's own and are updated in place.
using NamedParameters = core::NamedTensors;

// Optimizer state as a flat map: "<parameter name>.<key>" for each parameter's state, with
// torch's keys where the reference has them ("...to_q.lora_A.weight.exp_avg", "....step"), and
// keys without a dot for optimizer-wide values (Prodigy's "d"). Scalars are 0-d tensors.
using StateTensors = std::map<std::string, at::Tensor>;

struct StateBytes {
    std::int64_t cpu = 0;    // host memory, pinned or not
    std::int64_t device = 0; // accelerator memory (CUDA or any other non-CPU device)
    std::int64_t total() const { return cpu + device; }
};

// The common part of Tuneframe's optimizers: parameters by name, the learning rate the schedule
// sets before each step, lazily created per-parameter state, and state I/O for checkpoints.
//
// Precision: parameters are float32, bfloat16, or float16 (CUDA only; a CPU fp16 parameter is an
// Unsupported error at construction). Updates are always computed in float32 with float32
// state. A bf16/fp16 parameter gets a float32 master copy, held in the state as
// "<param>.master", which the update is applied to and then rounded into the parameter, as the
// reference trainers get by keeping trainable weights in float32; without it an update below
// half a bf16 step (0.2-0.4% of the weight) is lost outright. With fp32_master_weights off the
// update is applied to a float32 copy of the bf16 parameter and rounded back (torch's and
// bitsandbytes' behaviour on bf16 weights), trading that accuracy for 4 bytes per parameter.
//
// State is created at a parameter's first step with a gradient, as torch does, so
// state_bytes() is 0 before the first step and a parameter that never had a gradient holds
// none. Not thread-safe: one thread drives an optimizer.
class Optimizer {
public:
    virtual ~Optimizer();
    Optimizer(const Optimizer&) = delete;
    Optimizer& operator=(const Optimizer&) = delete;

    // The factory name: "adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came".
    const std::string& name() const { return name_; }
    const NamedParameters& parameters() const { return parameters_; }

    // One update from each parameter's .grad(); parameters without a gradient are skipped and
    // keep their state. Gradients must be on the parameter's device.
    virtual void step() = 0;
    // Undefines the gradients (torch 2's default), or zeroes them in place.
    void zero_grad(bool set_to_none = true);

    double lr() const { return lr_; }
    // Any finite lr >= 0; the schedule sets it before each step (0 is a warmup's first lr).
    void set_lr(double lr);

    // The live state tensors (not copies): write them out before the next step. A checkpoint
    // holding these and the parameters continues bit-identically after load_state_tensors().
    core::NamedTensors state_tensors() const;
    // Replaces the state with `tensors` (typically read back from a safetensors file), moved to
    // where this optimizer keeps each tensor. A parameter with none of its keys starts fresh, as
    // one that had no gradient yet. Missing, unexpected, mis-typed or mis-shaped keys are a
    // BadInput error listing them, and leave the state as it was.
    void load_state_tensors(const StateTensors& tensors);

    // Bytes of optimizer memory (state, master copies, buffers) on the host and on devices.
    StateBytes state_bytes() const;

protected:
    Optimizer(std::string name, NamedParameters parameters, double lr, bool fp32_master_weights);

    std::size_t parameter_count() const { return parameters_.size(); }
    const at::Tensor& parameter(std::size_t index) const { return parameters_[index].second; }
    const std::string& parameter_name(std::size_t index) const { return parameters_[index].first; }
    StateTensors& state(std::size_t index) { return state_[index]; }
    bool fp32_master_weights() const { return fp32_master_weights_; }

    // Creates the parameter's state (except "master", which this class adds first). `working`
    // is the float32 tensor the updates go to: the parameter itself, or its master copy.
    virtual void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) = 0;
    // Whether the parameter is updated through a float32 master copy held in the state, and
    // where that copy lives.
    virtual bool keeps_master(const at::Tensor& parameter) const;
    virtual c10::Device master_device(const at::Tensor& parameter) const;
    // A loaded tensor whose shape differs from the fresh state's is normally an error; an
    // optimizer that stores some state in more than one shape (Prodigy's p0) says which.
    virtual bool accepts_loaded_shape(const std::string& key, const at::Tensor& loaded,
                                      const StateTensors& fresh) const;
    // Optimizer-wide state (keys without a dot); read_group_state gets exactly these keys.
    virtual std::vector<std::string> group_state_keys() const { return {}; }
    virtual void write_group_state(core::NamedTensors& out) const {}
    virtual void read_group_state(const StateTensors& tensors) {}
    // Memory an optimizer holds outside its state (staging buffers, lookup tables).
    virtual StateBytes buffer_bytes() const { return {}; }

    // Creates the state on first use and returns the float32 tensor to update: the parameter,
    // its master copy, or (bf16 without masters) a fresh float32 copy, which `write_back`
    // rounds into the parameter.
    at::Tensor working_tensor(std::size_t index);
    void write_back(std::size_t index, const at::Tensor& working);
    // The gradient as float32 on its own device; undefined when the parameter has none.
    at::Tensor float_gradient(std::size_t index) const;

    using GradientVisitor = std::function<void(std::size_t index, at::Tensor& working,
                                               const at::Tensor& gradient, StateTensors& state)>;
    // Calls `visit` for each parameter with a gradient, in order, under no-grad, then (when
    // `write_back` is set) rounds the working tensor into a bf16/fp16 parameter.
    void for_each_gradient(const GradientVisitor& visit, bool write_back = true);

private:
    StateTensors fresh_state(std::size_t index);

    std::string name_;
    NamedParameters parameters_;
    double lr_ = 0;
    bool fp32_master_weights_ = true;
    std::vector<StateTensors> state_; // per parameter; empty until its first step
};

// An error for an option value, naming the field as the job does ("lr", "beta2", ...).
[[noreturn]] void throw_bad_option(const std::string& field, double value,
                                   const std::string& requirement, const std::string& hint = {});

} // namespace tuneframe::train
