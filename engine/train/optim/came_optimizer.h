#pragma once

#include "engine/train/optim/optimizer.h"

namespace tuneframe::train {

struct CAMEHyperParameters {
    double lr = 0; // required: CAME has no default
    double beta1 = 0.9;
    double beta2 = 0.999;  // squared-gradient average
    double beta3 = 0.9999; // instability average
    double eps1 = 1e-30;   // added to the squared gradient
    double eps2 = 1e-16;   // added to the instability
    double clip_threshold = 1.0;
    double weight_decay = 0;
};

// came_pytorch 0.1.3 (CAME: Confidence-guided Adaptive Memory Efficient Optimization), in its
// operation order. Tensors of two or more dimensions keep factored second moments (row and
// column averages over the last two dimensions, as Adafactor does); others keep them whole.
// State per parameter: step (int64), RMS (the parameter's RMS before the step, kept for
// parity with the reference), exp_avg, and exp_avg_sq_row/_col with exp_avg_res_row/_col when
// factored, exp_avg_sq otherwise. Weight decay is applied to the weights (p -= lr * wd * p).
class CAMEOptimizer : public Optimizer {
public:
    CAMEOptimizer(NamedParameters parameters, const CAMEHyperParameters& hyper,
                  bool fp32_master_weights = true);

    void step() override;

protected:
    void init_state(std::size_t index, const at::Tensor& working, StateTensors& state) override;

private:
    CAMEHyperParameters hyper_;
};

} // namespace tuneframe::train
