#pragma once

#include "engine/train/optim/adam_optimizer.h"

namespace tuneframe::train {

// AdamW with the update on the CPU: float32 master weights and both moments live in host
// memory, so the device holds only the (possibly bf16) parameters and their gradients. A step
// copies each gradient to the host, updates the master copy there, and copies the rounded
// result back into the device parameter. The main thread issues the copies and a worker
// thread runs the CPU updates, so parameter i + 1's gradient arrives while parameter i is
// updated. With CUDA, the
// copies go through a pinned staging buffer per parameter (in the parameter's dtype) on two
// copy streams of their own, one each way, so results going up overlap gradients coming down;
// events order them after the backward pass and before the next forward.
//
// On the CPU (no accelerator) it still works: a float32 CPU parameter is its own master and the
// results equal "adamw" bit for bit; a bf16 one gets a master copy exactly as "adamw" does.
// State per parameter: master (unless the parameter is a float32 CPU tensor), exp_avg,
// exp_avg_sq, step, all on the CPU; state_bytes().device is 0.
class AdamWCpuOffloadOptimizer : public Optimizer {
public:
    // `hyper.decoupled` must be true (this is AdamW).
    AdamWCpuOffloadOptimizer(NamedParameters parameters, const AdamHyperParameters& hyper,
                             bool fp32_master_weights = true);

    void step() override;

protected:
    void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) override;
    bool keeps_master(const at::Tensor& parameter) const override;
    c10::Device master_device(const at::Tensor& parameter) const override;
    StateBytes buffer_bytes() const override;

private:
    // The parameters with a gradient, each with its state and staging buffer created.
    std::vector<std::size_t> prepare_step();
    // The device of the parameters that go through staging buffers (CPU when none does).
    c10::Device staged_device(const std::vector<std::size_t>& pending) const;
    // The host copy of a gradient, as float32: for a device parameter, from its staging buffer
    // (which the caller has waited for).
    at::Tensor host_gradient(std::size_t index) const;
    // Runs on the worker thread: the AdamW update of parameter `index` on the CPU, then the
    // rounded result into the parameter (CPU) or its staging buffer (device).
    void update_on_host(std::size_t index, const at::Tensor& gradient,
                        const AdamHyperParameters& hyper);

    AdamHyperParameters hyper_;
    std::vector<at::Tensor> staging_; // per parameter; pinned when CUDA, only for device params
};

} // namespace tuneframe::train
