#pragma once

#include <cstdint>
#include <memory>

namespace c10 {
struct Allocator;
}

namespace tuneframe::core {

// Counts the bytes of every CPU tensor allocated while it is alive, as the CUDA caching
// allocator's statistics do on a GPU: the peak of live tensor bytes, without the program's code,
// libraries and allocator slack that the resident set also holds. Installs itself as LibTorch's
// CPU allocator (a process-wide LibTorch setting) over the one in place and puts that one back
// when destroyed; tensors allocated before it was installed are not counted. One at a time.
class CpuAllocationTracker {
public:
    CpuAllocationTracker();
    ~CpuAllocationTracker();
    CpuAllocationTracker(const CpuAllocationTracker&) = delete;
    CpuAllocationTracker& operator=(const CpuAllocationTracker&) = delete;

    std::int64_t live_bytes() const;
    std::int64_t peak_bytes() const;
    void reset_peak(); // the peak starts again from the bytes live now

    struct Counters;
    class CountingAllocator;

private:
    std::shared_ptr<Counters> counters_;
    std::unique_ptr<CountingAllocator> allocator_;
    c10::Allocator* previous_ = nullptr;
};

} // namespace tuneframe::core
