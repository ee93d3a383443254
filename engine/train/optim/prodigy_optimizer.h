#pragma once

#include "engine/train/optim/optimizer.h"

#include <limits>
#include <optional>

namespace tuneframe::train {

struct ProdigyHyperParameters {
    double lr = 1.0; // a multiplier on the estimated step size; leave at 1
    double beta1 = 0.9;
    double beta2 = 0.999;
    std::optional<double> beta3; // the d statistics' decay; sqrt(beta2) when unset
    double eps = 1e-8;
    double weight_decay = 0;
    bool decouple = true; // AdamW-style decay; false adds weight_decay * p to the gradient
    bool use_bias_correction = false;
    bool safeguard_warmup = false;
    double d0 = 1e-6;
    double d_coef = 1.0;
    double growth_rate = std::numeric_limits<double>::infinity();
    std::int64_t slice_p = 1; // estimate d from every slice_p-th element only
};

// Prodigy's optimizer-wide statistics after the latest step that did anything; d_hat and
// d_denom are 0 before the first.
struct ProdigyStatistics {
    double d = 0;
    double d_max = 0;
    double d_hat = 0;
    double d_numerator = 0;
    double d_denom = 0;
    std::int64_t k = 0; // steps taken
};

// prodigyopt 1.1.2 (Adam with Prodigy's estimate d of the distance to the solution as step
// size), in its operation order: the statistics are Python floats (double) accumulated from
// float32 dot products and sums, in parameter order. One parameter group; no FSDP support
// (sharded training must all-reduce d's numerator and denominator, which this does not do).
// A step at lr 0 (a warmup's first) changes nothing but creates the state, as in prodigyopt.
// State per parameter: step (int64), s and p0 (flattened, every slice_p-th element; p0 is a
// 0-d zero for an all-zero parameter such as a fresh LoRA B), exp_avg (when beta1 > 0) and
// exp_avg_sq; optimizer-wide: d, d_max, d_hat, d_numerator, d_denom (float64) and k (int64).
class ProdigyOptimizer : public Optimizer {
public:
    ProdigyOptimizer(NamedParameters parameters, const ProdigyHyperParameters& hyper,
                     bool fp32_master_weights = true);

    void step() override;
    const ProdigyStatistics& statistics() const { return statistics_; }

protected:
    void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) override;
    bool accepts_loaded_shape(const std::string& key, const at::Tensor& loaded,
                              const StateTensors& fresh) const override;
    std::vector<std::string> group_state_keys() const override;
    void write_group_state(core::NamedTensors& out) const override;
    void read_group_state(const StateTensors& tensors) override;

private:
    at::Tensor sliced(const at::Tensor& tensor) const; // flatten()[::slice_p]
    at::Tensor effective_gradient(const at::Tensor& param, const at::Tensor& gradient) const;

    ProdigyHyperParameters hyper_;
    double beta3_ = 0;
    ProdigyStatistics statistics_;
};

} // namespace tuneframe::train
