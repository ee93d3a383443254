#include "engine/train/bench/step_phase_clock.h"

#include <chrono>
#include <optional>
#include <utility>

#ifdef TUNEFRAME_TORCH_CUDA
#include <ATen/cuda/CUDAEvent.h>
#endif

namespace tuneframe::train {

struct StepPhaseClock::Marks {
    bool cuda = false;
    std::vector<std::string> names;
    std::vector<std::chrono::steady_clock::time_point> times;
#ifdef TUNEFRAME_TORCH_CUDA
    // Timing events (the default CUDAEvent has timing disabled).
    std::vector<std::unique_ptr<at::cuda::CUDAEvent>> events;
#endif

    void record() {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda) {
            events.push_back(std::make_unique<at::cuda::CUDAEvent>(cudaEventDefault));
            events.back()->record();
            return;
        }
#endif
        times.push_back(std::chrono::steady_clock::now());
    }

    double seconds_between(std::size_t from, std::size_t to) const {
#ifdef TUNEFRAME_TORCH_CUDA
        if (cuda) {
            return static_cast<double>(events[from]->elapsed_time(*events[to])) / 1000.0;
        }
#endif
        return std::chrono::duration<double>(times[to] - times[from]).count();
    }
};

StepPhaseClock::StepPhaseClock(const c10::Device& device)
    : marks_(std::make_unique<Marks>()) {
    marks_->cuda = device.is_cuda();
}

StepPhaseClock::~StepPhaseClock() = default;

void StepPhaseClock::start() {
    const bool cuda = marks_->cuda;
    marks_ = std::make_unique<Marks>();
    marks_->cuda = cuda;
    marks_->record();
}

void StepPhaseClock::mark(const std::string& phase) {
    marks_->names.push_back(phase);
    marks_->record();
}

std::vector<std::pair<std::string, double>> StepPhaseClock::phases() const {
    std::vector<std::pair<std::string, double>> result;
    for (std::size_t i = 0; i < marks_->names.size(); ++i) {
        result.emplace_back(marks_->names[i], marks_->seconds_between(i, i + 1));
    }
    return result;
}

} // namespace tuneframe::train
