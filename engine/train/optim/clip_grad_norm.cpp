#include "engine/train/optim/clip_grad_norm.h"

#include "engine/core/grad_mode.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace tuneframe::train {

GradNorm clip_grad_norm(const NamedParameters& parameters, double max_norm) {
    return clip_grad_norm(parameters, max_norm, {});
}

GradNorm clip_grad_norm(const NamedParameters& parameters, double max_norm,
                        const SquareSumReducer& sum_over_ranks, const CountedHere& counted_here) {
    // +infinity measures without clipping: the job's max_grad_norm 0.
    if (!(max_norm > 0)) {
        throw_bad_option("max_grad_norm", max_norm, "a number > 0", "cogvideox-factory uses 1.0.");
    }
    core::NoGradGuard no_grad;
    std::vector<at::Tensor> gradients;
    std::vector<bool> counted;
    for (const auto& entry : parameters) {
        if (entry.second.grad().defined()) {
            gradients.push_back(entry.second.grad().detach());
            counted.push_back(!counted_here || counted_here(entry.first));
        }
    }
    GradNorm result;
    if (gradients.empty() && !sum_over_ranks) {
        result.tensor = at::zeros({}, at::TensorOptions().dtype(at::kFloat));
        return result;
    }
    const c10::Device device =
        gradients.empty() ? c10::Device(c10::kCPU) : gradients.front().device();
    std::vector<at::Tensor> norms;
    norms.reserve(gradients.size());
    for (std::size_t i = 0; i < gradients.size(); ++i) {
        const at::Tensor& gradient = gradients[i];
        if (!counted[i]) {
            continue;
        }
        const at::Tensor norm = gradient.scalar_type() == at::kFloat
                                    ? gradient.norm(2)
                                    : at::norm(gradient, 2, at::kFloat);
        norms.push_back(norm.to(device));
    }
    at::Tensor total;
    if (sum_over_ranks) {
        const at::Tensor local = norms.empty()
                                     ? at::zeros({}, at::TensorOptions().dtype(at::kFloat))
                                     : at::stack(norms).square().sum();
        total = sum_over_ranks(local).to(device).sqrt();
    } else {
        total = at::stack(norms).norm(2);
    }
    // Python's `max_norm / tensor` is tensor.reciprocal() * max_norm.
    const at::Tensor coefficient = (total + 1e-6).reciprocal() * max_norm;
    const at::Tensor clamped = coefficient.clamp(c10::nullopt, 1.0);
    for (const at::Tensor& gradient : gradients) {
        gradient.mul_(clamped.to(gradient.device()));
    }
    result.tensor = total;
    return result;
}

} // namespace tuneframe::train
