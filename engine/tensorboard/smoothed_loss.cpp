#include "engine/tensorboard/smoothed_loss.h"

#include <algorithm>
#include <cmath>

namespace tuneframe::tensorboard {

SmoothedLoss::SmoothedLoss(double weight)
    : weight_(std::clamp(weight, 0.0, 0.999)) {}

double SmoothedLoss::add(double loss) {
    if (!std::isfinite(loss)) {
        return loss;
    }
    accumulator_ = accumulator_ * weight_ + (1.0 - weight_) * loss;
    ++count_;
    // Without this the first values would be pulled toward the accumulator's zero start.
    const double debias = 1.0 - std::pow(weight_, count_);
    return debias > 0 ? accumulator_ / debias : loss;
}

} // namespace tuneframe::tensorboard
