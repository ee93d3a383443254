#pragma once

#include <QtGlobal>

// Time left in a training run from the engine's own step times: a debiased exponential moving
// average of step_time_s, so one slow step (a checkpoint's, the first one's warm-up) moves the
// estimate a little instead of making it jump. The engine measures each step from its start to
// its end, so the time a run spends paused never enters it; while paused no step arrives and the
// estimate stays where it was.
class RemainingTimeEstimate {
public:
    // weight 0.98: a step counts for 2% of the estimate; about 100 steps make up most of it.
    explicit RemainingTimeEstimate(double weight = 0.98);

    // A step's time in seconds; non-finite or negative times are ignored.
    void addStepTime(double seconds);
    void reset();
    bool hasEstimate() const;
    // The smoothed seconds per step; negative before the first step time.
    double secondsPerStep() const;
    // Seconds for the steps still to go; negative when unknown.
    double secondsLeft(qint64 stepsLeft) const;

private:
    double m_weight;
    double m_accumulator = 0.0;
    int m_count = 0;
};
