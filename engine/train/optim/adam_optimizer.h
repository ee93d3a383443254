#pragma once

#include "engine/train/optim/optimizer.h"

namespace tuneframe::train {

struct AdamHyperParameters {
    double lr = 1e-3;
    double beta1 = 0.9;
    double beta2 = 0.999;
    double eps = 1e-8;
    double weight_decay = 0;
    // true: AdamW (the weights shrink by lr * weight_decay); false: Adam's L2 term added to the
    // gradient.
    bool decoupled = true;
};

// The scalars of one Adam step, from the incremented step count (torch 1.13, in double).
struct AdamStepScalars {
    double step_size = 0;             // lr / (1 - beta1^t)
    double bias_correction2_sqrt = 0; // sqrt(1 - beta2^t)
};

// Increments `step` (a float32 0-d tensor, as torch keeps it) and returns that step's scalars.
AdamStepScalars adam_begin_step(at::Tensor& step, const AdamHyperParameters& hyper);
// torch 1.13's single-tensor Adam/AdamW update, in its operation order (so results match it to
// the last bit on the same kernels): decay, moments, denominator, addcdiv. Works on views, so
// callers may update a parameter in chunks.
void adam_apply(const at::Tensor& param, const at::Tensor& gradient, const at::Tensor& exp_avg,
                const at::Tensor& exp_avg_sq, const AdamStepScalars& scalars,
                const AdamHyperParameters& hyper);

// torch.optim.AdamW ("adamw") and torch.optim.Adam with L2 weight decay ("adam"), without
// amsgrad. State per parameter: exp_avg, exp_avg_sq (float32, the parameter's shape) and step.
// On CUDA with LibTorch 2.1+ every parameter is updated by one fused kernel
// (torch.optim.AdamW(fused=True)) and the step counts live on the GPU; elsewhere each
// parameter takes the per-tensor path above.
class AdamOptimizer : public Optimizer {
public:
    AdamOptimizer(NamedParameters parameters, const AdamHyperParameters& hyper,
                  bool fp32_master_weights = true);

    void step() override;
    const AdamHyperParameters& hyper_parameters() const { return hyper_; }

protected:
    void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) override;

private:
    static bool fused_on(const c10::Device& device);

    AdamHyperParameters hyper_;
};

// Checks lr, betas, eps and weight_decay as torch does, naming the field.
void check_adam_hyper_parameters(const AdamHyperParameters& hyper);

} // namespace tuneframe::train
