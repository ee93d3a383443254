#include "engine/train/optim/prodigy_optimizer.h"

#include "engine/core/error.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>

namespace tuneframe::train {
namespace {

constexpr const char* kFloatKeys[] = {"d", "d_max", "d_hat", "d_numerator", "d_denom"};

double& float_statistic(ProdigyStatistics& statistics, const std::string& key) {
    if (key == "d") {
        return statistics.d;
    }
    if (key == "d_max") {
        return statistics.d_max;
    }
    if (key == "d_hat") {
        return statistics.d_hat;
    }
    if (key == "d_numerator") {
        return statistics.d_numerator;
    }
    return statistics.d_denom;
}

} // namespace

ProdigyOptimizer::ProdigyOptimizer(NamedParameters parameters, const ProdigyHyperParameters& hyper,
                                   bool fp32_master_weights)
    : Optimizer("prodigy", std::move(parameters), hyper.lr, fp32_master_weights)
    , hyper_(hyper) {
    if (!(hyper_.lr > 0)) {
        throw_bad_option("lr", hyper_.lr, "> 0", "Prodigy estimates the step size; use lr 1.");
    }
    if (!(hyper_.beta1 >= 0 && hyper_.beta1 < 1)) {
        throw_bad_option("beta1", hyper_.beta1, "in [0, 1)", "Prodigy's default is 0.9.");
    }
    if (!(hyper_.beta2 >= 0 && hyper_.beta2 < 1)) {
        throw_bad_option("beta2", hyper_.beta2, "in [0, 1)", "Prodigy's default is 0.999.");
    }
    beta3_ = hyper_.beta3 ? *hyper_.beta3 : std::sqrt(hyper_.beta2);
    if (!(beta3_ >= 0 && beta3_ <= 1)) {
        throw_bad_option("beta3", beta3_, "in [0, 1]", "Leave it unset for sqrt(beta2).");
    }
    if (!(hyper_.eps > 0) || !std::isfinite(hyper_.eps)) {
        throw_bad_option("epsilon", hyper_.eps, "a finite number > 0", "Prodigy uses 1e-8.");
    }
    if (!(hyper_.weight_decay >= 0) || !std::isfinite(hyper_.weight_decay)) {
        throw_bad_option("weight_decay", hyper_.weight_decay, "a finite number >= 0");
    }
    if (!(hyper_.d0 > 0) || !std::isfinite(hyper_.d0)) {
        throw_bad_option("prodigy_d0", hyper_.d0, "a finite number > 0", "Prodigy uses 1e-6.");
    }
    if (!(hyper_.d_coef > 0) || !std::isfinite(hyper_.d_coef)) {
        throw_bad_option("prodigy_d_coef", hyper_.d_coef, "a finite number > 0",
                         "0.5 to 2 are typical.");
    }
    if (!(hyper_.growth_rate > 0)) {
        throw_bad_option("prodigy_growth_rate", hyper_.growth_rate, "> 0 (or infinite)");
    }
    if (hyper_.slice_p < 1) {
        throw_bad_option("prodigy_slice_p", static_cast<double>(hyper_.slice_p), ">= 1",
                         "1 uses every element; 11 is Prodigy's suggestion for saving memory.");
    }
    statistics_.d = hyper_.d0;
    statistics_.d_max = hyper_.d0;
}

at::Tensor ProdigyOptimizer::sliced(const at::Tensor& tensor) const {
    return tensor.flatten().slice(0, 0, c10::nullopt, hyper_.slice_p);
}

at::Tensor ProdigyOptimizer::effective_gradient(const at::Tensor& param,
                                                const at::Tensor& gradient) const {
    if (hyper_.weight_decay != 0 && !hyper_.decouple) {
        return gradient.add(param, hyper_.weight_decay);
    }
    return gradient;
}

void ProdigyOptimizer::init_state(std::size_t, const at::Tensor& working, StateTensors& state) {
    state["step"] = at::zeros({}, at::TensorOptions().dtype(at::kLong));
    state["s"] = at::zeros_like(sliced(working), at::MemoryFormat::Contiguous);
    // An all-zero parameter's p0 is a 0-d zero, which broadcasts the same and saves its size.
    state["p0"] = working.any().item<bool>() ? sliced(working).clone(at::MemoryFormat::Contiguous)
                                             : at::zeros({}, working.options());
    if (hyper_.beta1 > 0) {
        state["exp_avg"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    }
    state["exp_avg_sq"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
}

bool ProdigyOptimizer::accepts_loaded_shape(const std::string& key, const at::Tensor& loaded,
                                            const StateTensors& fresh) const {
    return key == "p0" && (loaded.dim() == 0 || loaded.sizes() == fresh.at("s").sizes());
}

std::vector<std::string> ProdigyOptimizer::group_state_keys() const {
    return {"d", "d_max", "d_hat", "d_numerator", "d_denom", "k"};
}

void ProdigyOptimizer::write_group_state(core::NamedTensors& out) const {
    ProdigyStatistics statistics = statistics_;
    for (const char* key : kFloatKeys) {
        out.emplace_back(key, at::scalar_tensor(float_statistic(statistics, key),
                                                at::TensorOptions().dtype(at::kDouble)));
    }
    out.emplace_back("k", at::scalar_tensor(statistics_.k, at::TensorOptions().dtype(at::kLong)));
}

void ProdigyOptimizer::read_group_state(const StateTensors& tensors) {
    ProdigyStatistics statistics;
    for (const auto& [key, tensor] : tensors) {
        const at::ScalarType expected = key == "k" ? at::kLong : at::kDouble;
        if (tensor.scalar_type() != expected || tensor.dim() != 0) {
            throw core::Error(core::ErrorCode::BadInput,
                              "The optimizer state's \"" + key + "\" is not a 0-d " +
                                  (key == "k" ? "int64" : "float64") + " tensor.",
                              "Resume with the optimizer the checkpoint was written with.");
        }
        if (key == "k") {
            statistics.k = tensor.item<std::int64_t>();
        } else {
            float_statistic(statistics, key) = tensor.item<double>();
        }
    }
    statistics_ = statistics;
}

void ProdigyOptimizer::step() {
    const ProdigyHyperParameters& h = hyper_;
    const double lr = this->lr();
    const std::int64_t k = statistics_.k;
    double d = statistics_.d;
    double d_max = statistics_.d_max;
    const double bias_correction = h.use_bias_correction
                                       ? std::pow(1 - std::pow(h.beta2, k + 1), 0.5) /
                                             (1 - std::pow(h.beta1, static_cast<double>(k + 1)))
                                       : 1.0;
    const double dlr = d * lr * bias_correction;
    const double d_numerator = statistics_.d_numerator * beta3_;
    double delta_numerator = 0.0;
    double d_denom = 0.0;

    // First pass: the moments and the d statistics, which the step size of the second needs.
    for_each_gradient(
        [&](std::size_t, at::Tensor& param, const at::Tensor& gradient, StateTensors& state) {
            if (!(lr > 0)) {
                return;
            }
            const at::Tensor grad = effective_gradient(param, gradient);
            const at::Tensor sliced_grad = sliced(grad);
            const at::Tensor& s = state.at("s");
            delta_numerator += (d / h.d0) * dlr *
                               at::dot(sliced_grad, state.at("p0") - sliced(param)).item<double>();
            if (h.beta1 > 0) {
                state.at("exp_avg").mul_(h.beta1).add_(grad, d * (1 - h.beta1));
            }
            state.at("exp_avg_sq").mul_(h.beta2).addcmul_(grad, grad, d * d * (1 - h.beta2));
            s.mul_(beta3_).add_(sliced_grad, (d / h.d0) * (h.safeguard_warmup ? d : dlr));
            d_denom += s.abs().sum().item<double>();
        },
        /*write_back=*/false);

    // No progress to measure (no gradients, all zero, or lr 0): prodigyopt returns here.
    if (d_denom == 0) {
        return;
    }
    const double global_numerator = d_numerator + delta_numerator;
    const double d_hat = h.d_coef * global_numerator / d_denom;
    if (d == h.d0) {
        d = std::max(d, d_hat);
    }
    d_max = std::max(d_max, d_hat);
    d = std::min(d_max, d * h.growth_rate);
    statistics_.d_numerator = global_numerator;
    statistics_.d_denom = d_denom;
    statistics_.d = d;
    statistics_.d_max = d_max;
    statistics_.d_hat = d_hat;

    for_each_gradient(
        [&](std::size_t, at::Tensor& param, const at::Tensor& gradient, StateTensors& state) {
            state.at("step").add_(1);
            const at::Tensor denom = state.at("exp_avg_sq").sqrt().add_(d * h.eps);
            if (h.weight_decay != 0 && h.decouple) {
                param.add_(param, -h.weight_decay * dlr);
            }
            if (h.beta1 > 0) {
                param.addcdiv_(state.at("exp_avg"), denom, -dlr);
            } else {
                param.addcdiv_(effective_gradient(param, gradient), denom, -dlr * d);
            }
        });
    statistics_.k = k + 1;
}

} // namespace tuneframe::train
