#include "app/runs/LossSmoother.h"

#include <algorithm>
#include <cmath>

LossSmoother::LossSmoother(double weight)
    : m_weight(std::clamp(weight, 0.0, 0.999)) {}

double LossSmoother::add(double loss) {
    if (!std::isfinite(loss))
        return loss;
    m_accumulator = m_accumulator * m_weight + (1.0 - m_weight) * loss;
    ++m_count;
    const double debias = 1.0 - std::pow(m_weight, m_count);
    return debias > 0 ? m_accumulator / debias : loss;
}

void LossSmoother::reset() {
    m_accumulator = 0.0;
    m_count = 0;
}
