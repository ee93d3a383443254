#include "engine/train/bench/kineto_trace.h"

#include "engine/core/error.h"

#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/autograd/profiler_kineto.h>
#endif

namespace tuneframe::train {

#if TORCH_VERSION_MAJOR >= 2
namespace profiler = torch::autograd::profiler;
namespace impl = torch::profiler::impl;

KinetoTrace::KinetoTrace(bool cuda) {
    const impl::ProfilerConfig config(impl::ProfilerState::KINETO);
    std::set<impl::ActivityType> activities{impl::ActivityType::CPU};
    if (cuda) {
        activities.insert(impl::ActivityType::CUDA);
    }
    profiler::prepareProfiler(config, activities);
    profiler::enableProfiler(config, activities);
    recording_ = true;
}

KinetoTrace::~KinetoTrace() {
    if (recording_) {
        profiler::disableProfiler();
    }
}

void KinetoTrace::save(const std::filesystem::path& path) {
    recording_ = false;
    profiler::disableProfiler()->save(path.string());
}
#else
KinetoTrace::KinetoTrace(bool) {
    throw core::Error(core::ErrorCode::Unsupported, "bench --profile needs LibTorch 2.x.",
                      "Build the engine against LibTorch 2.x (README: LibTorch 2.x and CUDA).");
}

KinetoTrace::~KinetoTrace() = default;

void KinetoTrace::save(const std::filesystem::path&) {}
#endif

} // namespace tuneframe::train
