#pragma once

// TensorBoard's debiased exponential moving average: early values are not pulled toward zero.
// Non-finite losses are skipped (a NaN step leaves the curve where it was).
class LossSmoother {
public:
    explicit LossSmoother(double weight = 0.6);

    // Adds a loss and returns the smoothed value, or the input when it is not finite.
    double add(double loss);
    void reset();

private:
    double m_weight;
    double m_accumulator = 0.0;
    int m_count = 0;
};
