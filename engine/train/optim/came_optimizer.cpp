#include "engine/train/optim/came_optimizer.h"

#include <ATen/ATen.h>

#include <cmath>
#include <vector>

namespace tuneframe::train {
namespace {

bool factored(const at::Tensor& tensor) {
    return tensor.dim() >= 2;
}

at::Tensor root_mean_square(const at::Tensor& tensor) {
    return tensor.norm(2) / std::pow(static_cast<double>(tensor.numel()), 0.5);
}

// The rank-1 estimate of an average from its row and column means, as an inverse square root.
at::Tensor approximate_rsqrt(const at::Tensor& row, const at::Tensor& column) {
    const at::Tensor row_factor = (row / row.mean(-1, /*keepdim=*/true)).rsqrt_().unsqueeze(-1);
    const at::Tensor column_factor = column.unsqueeze(-2).rsqrt();
    return at::mul(row_factor, column_factor);
}

void check_beta(const char* field, double beta) {
    if (!(beta >= 0 && beta <= 1)) {
        throw_bad_option(field, beta, "in [0, 1]", "CAME's defaults are 0.9, 0.999 and 0.9999.");
    }
}

} // namespace

CAMEOptimizer::CAMEOptimizer(NamedParameters parameters, const CAMEHyperParameters& hyper,
                             bool fp32_master_weights)
    : Optimizer("came", std::move(parameters), hyper.lr, fp32_master_weights)
    , hyper_(hyper) {
    if (!(hyper_.lr > 0)) {
        throw_bad_option("lr", hyper_.lr, "> 0", "CAME has no default learning rate; try 1e-4.");
    }
    check_beta("beta1", hyper_.beta1);
    check_beta("beta2", hyper_.beta2);
    check_beta("beta3", hyper_.beta3);
    for (const auto& [field, value] :
         {std::make_pair("came_eps1", hyper_.eps1), std::make_pair("came_eps2", hyper_.eps2),
          std::make_pair("weight_decay", hyper_.weight_decay)}) {
        if (!(value >= 0) || !std::isfinite(value)) {
            throw_bad_option(field, value, "a finite number >= 0");
        }
    }
    if (!(hyper_.clip_threshold > 0) || !std::isfinite(hyper_.clip_threshold)) {
        throw_bad_option("clip_threshold", hyper_.clip_threshold, "a finite number > 0",
                         "CAME uses 1.");
    }
}

void CAMEOptimizer::init_state(std::size_t, const at::Tensor& working, StateTensors& state) {
    const at::TensorOptions options = working.options();
    state["step"] = at::zeros({}, at::TensorOptions().dtype(at::kLong));
    state["RMS"] = at::zeros({}, options);
    state["exp_avg"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    if (factored(working)) {
        std::vector<std::int64_t> row_shape(working.sizes().begin(), working.sizes().end() - 1);
        std::vector<std::int64_t> column_shape = row_shape;
        column_shape.back() = working.size(-1);
        state["exp_avg_sq_row"] = at::zeros(row_shape, options);
        state["exp_avg_sq_col"] = at::zeros(column_shape, options);
        state["exp_avg_res_row"] = at::zeros(row_shape, options);
        state["exp_avg_res_col"] = at::zeros(column_shape, options);
    } else {
        state["exp_avg_sq"] = at::zeros_like(working, at::MemoryFormat::Contiguous);
    }
}

void CAMEOptimizer::step() {
    const CAMEHyperParameters& h = hyper_;
    const double lr = this->lr();
    for_each_gradient(
        [&](std::size_t, at::Tensor& param, const at::Tensor& grad, StateTensors& state) {
            state.at("step").add_(1);
            state.at("RMS").copy_(root_mean_square(param));

            at::Tensor update = grad.pow(2) + h.eps1;
            if (factored(grad)) {
                const at::Tensor& row = state.at("exp_avg_sq_row");
                const at::Tensor& column = state.at("exp_avg_sq_col");
                row.mul_(h.beta2).add_(update.mean(-1), 1.0 - h.beta2);
                column.mul_(h.beta2).add_(update.mean(-2), 1.0 - h.beta2);
                update = approximate_rsqrt(row, column);
                update.mul_(grad);
            } else {
                const at::Tensor& exp_avg_sq = state.at("exp_avg_sq");
                exp_avg_sq.mul_(h.beta2).add_(update, 1.0 - h.beta2);
                update = exp_avg_sq.rsqrt().mul_(grad);
            }
            update.div_((root_mean_square(update) / h.clip_threshold).clamp_min_(1.0));

            const at::Tensor& exp_avg = state.at("exp_avg");
            exp_avg.mul_(h.beta1).add_(update, 1 - h.beta1);

            // The instability: how far this update strays from its running average.
            const at::Tensor residual = (update - exp_avg).pow(2) + h.eps2;
            if (factored(grad)) {
                const at::Tensor& row = state.at("exp_avg_res_row");
                const at::Tensor& column = state.at("exp_avg_res_col");
                row.mul_(h.beta3).add_(residual.mean(-1), 1.0 - h.beta3);
                column.mul_(h.beta3).add_(residual.mean(-2), 1.0 - h.beta3);
                update = approximate_rsqrt(row, column).mul_(exp_avg);
            } else {
                update = exp_avg.clone();
            }

            if (h.weight_decay != 0) {
                param.add_(param, -h.weight_decay * lr);
            }
            update.mul_(lr);
            param.add_(-update);
        });
}

} // namespace tuneframe::train
