#include "app/runs/RemainingTimeEstimate.h"

#include <algorithm>
#include <cmath>

RemainingTimeEstimate::RemainingTimeEstimate(double weight)
    : m_weight(std::clamp(weight, 0.0, 0.999)) {}

void RemainingTimeEstimate::addStepTime(double seconds) {
    if (!std::isfinite(seconds) || seconds < 0)
        return;
    m_accumulator = m_weight * m_accumulator + (1.0 - m_weight) * seconds;
    ++m_count;
}

void RemainingTimeEstimate::reset() {
    m_accumulator = 0.0;
    m_count = 0;
}

bool RemainingTimeEstimate::hasEstimate() const {
    return m_count > 0;
}

double RemainingTimeEstimate::secondsPerStep() const {
    if (m_count == 0)
        return -1;
    // Without the division the first steps would read as faster than they are (the average
    // starts from zero).
    return m_accumulator / (1.0 - std::pow(m_weight, m_count));
}

double RemainingTimeEstimate::secondsLeft(qint64 stepsLeft) const {
    if (m_count == 0 || stepsLeft < 0)
        return -1;
    return secondsPerStep() * static_cast<double>(stepsLeft);
}
