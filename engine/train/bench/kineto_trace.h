#pragma once

#include <filesystem>

namespace tuneframe::train {

// Records every op and (on CUDA) every kernel from construction until save(), as
// torch.profiler does, and writes a Chrome trace (chrome://tracing, Perfetto) that
// bench/gpu/trace_summary.py sums per kernel. Needs LibTorch 2.x; on 1.13 construction throws.
class KinetoTrace {
public:
    explicit KinetoTrace(bool cuda);
    ~KinetoTrace(); // stops recording if save() was not called
    KinetoTrace(const KinetoTrace&) = delete;
    KinetoTrace& operator=(const KinetoTrace&) = delete;

    void save(const std::filesystem::path& path);

private:
    [[maybe_unused]] bool recording_ = false; // read only where LibTorch 2.x records
};

} // namespace tuneframe::train
