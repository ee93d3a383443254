#include "engine/train/optim/adam_optimizer.h"

#include "engine/core/grad_mode.h"
#include "engine/core/kernels/fused_adam.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace tuneframe::train {

void check_adam_hyper_parameters(const AdamHyperParameters& hyper) {
    if (!(hyper.beta1 >= 0 && hyper.beta1 < 1)) {
        throw_bad_option("beta1", hyper.beta1, "in [0, 1)", "The usual value is 0.9.");
    }
    if (!(hyper.beta2 >= 0 && hyper.beta2 < 1)) {
        throw_bad_option("beta2", hyper.beta2, "in [0, 1)", "Common values are 0.95 and 0.999.");
    }
    if (!(hyper.eps >= 0) || !std::isfinite(hyper.eps)) {
        throw_bad_option("epsilon", hyper.eps, "a finite number >= 0", "The usual value is 1e-8.");
    }
    if (!(hyper.weight_decay >= 0) || !std::isfinite(hyper.weight_decay)) {
        throw_bad_option("weight_decay", hyper.weight_decay, "a finite number >= 0",
                         "Use 0 for none; 1e-4 to 1e-2 are common.");
    }
}

AdamStepScalars adam_begin_step(at::Tensor& step, const AdamHyperParameters& hyper) {
    step.add_(1);
    // torch reads the float32 step back as a Python float.
    const double count = step.item<double>();
    AdamStepScalars scalars;
    scalars.step_size = hyper.lr / (1 - std::pow(hyper.beta1, count));
    scalars.bias_correction2_sqrt = std::sqrt(1 - std::pow(hyper.beta2, count));
    return scalars;
}

void adam_apply(const at::Tensor& param, const at::Tensor& gradient, const at::Tensor& exp_avg,
                const at::Tensor& exp_avg_sq, const AdamStepScalars& scalars,
                const AdamHyperParameters& hyper) {
    at::Tensor grad = gradient;
    if (hyper.decoupled) {
        param.mul_(1 - hyper.lr * hyper.weight_decay);
    } else if (hyper.weight_decay != 0) {
        grad = gradient.add(param, hyper.weight_decay);
    }
    exp_avg.mul_(hyper.beta1).add_(grad, 1 - hyper.beta1);
    exp_avg_sq.mul_(hyper.beta2).addcmul_(grad, grad, 1 - hyper.beta2);
    const at::Tensor denom = (exp_avg_sq.sqrt() / scalars.bias_correction2_sqrt).add_(hyper.eps);
    param.addcdiv_(exp_avg, denom, -scalars.step_size);
}

AdamOptimizer::AdamOptimizer(NamedParameters parameters, const AdamHyperParameters& hyper,
                             bool fp32_master_weights)
    : Optimizer(hyper.decoupled ? "adamw" : "adam", std::move(parameters), hyper.lr,
                fp32_master_weights)
    , hyper_(hyper) {
    check_adam_hyper_parameters(hyper_);
}

void AdamOptimizer::init_state(std::size_t, const at::Tensor& working, StateTensors& state) {
    state["exp_avg"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    state["exp_avg_sq"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    // The fused kernel reads the count on the parameter's device; the per-tensor path reads it
    // on the host, where reading it costs no device sync.
    const c10::Device step_device = fused_on(working.device()) ? working.device() : c10::kCPU;
    state["step"] = at::zeros({}, at::TensorOptions().dtype(at::kFloat).device(step_device));
}

bool AdamOptimizer::fused_on(const c10::Device& device) {
    // The CPU keeps the per-tensor path: it is torch 1.13's operation order, which the golden
    // optimizer states are compared with bit for bit.
    return device.is_cuda() && core::has_fused_adam(device);
}

void AdamOptimizer::step() {
    AdamHyperParameters hyper = hyper_;
    hyper.lr = lr();
    std::vector<std::size_t> fused;
    std::vector<at::Tensor> params, grads, exp_avgs, exp_avg_sqs, steps;
    for_each_gradient(
        [&](std::size_t index, at::Tensor& working, const at::Tensor& gradient,
            StateTensors& state) {
            at::Tensor& step = state.at("step");
            if (step.device() == working.device() && fused_on(working.device())) {
                fused.push_back(index);
                params.push_back(working);
                grads.push_back(gradient.contiguous());
                exp_avgs.push_back(state.at("exp_avg"));
                exp_avg_sqs.push_back(state.at("exp_avg_sq"));
                steps.push_back(step);
                return;
            }
            const AdamStepScalars scalars = adam_begin_step(step, hyper);
            adam_apply(working, gradient, state.at("exp_avg"), state.at("exp_avg_sq"), scalars,
                       hyper);
            write_back(index, working);
        },
        /*write_back=*/false);
    core::FusedAdamScalars scalars;
    scalars.lr = hyper.lr;
    scalars.beta1 = hyper.beta1;
    scalars.beta2 = hyper.beta2;
    scalars.eps = hyper.eps;
    scalars.weight_decay = hyper.weight_decay;
    scalars.decoupled = hyper.decoupled;
    // In place on leaves that require grad, as for_each_gradient's visits are.
    core::NoGradGuard no_grad;
    core::fused_adam_step(params, grads, exp_avgs, exp_avg_sqs, steps, scalars);
    for (std::size_t i = 0; i < fused.size(); ++i) {
        write_back(fused[i], params[i]);
    }
}

} // namespace tuneframe::train
