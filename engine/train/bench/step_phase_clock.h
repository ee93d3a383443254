#pragma once

#include <c10/core/Device.h>

#include <memory>
#include <string>
#include <vector>

namespace tuneframe::train {

// Times the phases of a step (forward, backward, optimizer, ...) without stalling the GPU: on
// CUDA each boundary is an event recorded on the current stream and read only after the step
// has synchronised; on the CPU, where every op finishes before the next starts, a clock read.
class StepPhaseClock {
public:
    explicit StepPhaseClock(const c10::Device& device);
    ~StepPhaseClock();
    StepPhaseClock(const StepPhaseClock&) = delete;
    StepPhaseClock& operator=(const StepPhaseClock&) = delete;

    void start();                        // the step begins
    void mark(const std::string& phase); // `phase` ended here
    // Seconds each phase took, in mark order; call after the device has synchronised.
    std::vector<std::pair<std::string, double>> phases() const;

private:
    struct Marks;
    std::unique_ptr<Marks> marks_;
};

} // namespace tuneframe::train
