#pragma once

namespace tuneframe::tensorboard {

// The loss curve the studio draws (app/LossSmoother), so TensorBoard's "loss/smoothed" and the
// run page agree: TensorBoard's debiased exponential moving average with weight 0.6, where a
// non-finite loss leaves the average alone.
class SmoothedLoss {
public:
    explicit SmoothedLoss(double weight = 0.6);

    // Adds a loss and returns the smoothed value, or the input when it is not finite.
    double add(double loss);

private:
    double weight_;
    double accumulator_ = 0.0;
    int count_ = 0;
};

} // namespace tuneframe::tensorboard
