#include "engine/core/device/cpu_allocation_tracker.h"

#include <c10/core/Allocator.h>
#include <c10/core/CPUAllocator.h>
#include <torch/version.h>

#include <algorithm>
#include <atomic>
#include <new>

namespace tuneframe::core {

struct CpuAllocationTracker::Counters {
    std::atomic<std::int64_t> live{0};
    std::atomic<std::int64_t> peak{0};

    void add(std::int64_t bytes) {
        const std::int64_t now = live.fetch_add(bytes) + bytes;
        std::int64_t seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
    }
};

namespace {

// LibTorch hands CPU storage out as raw pointers too (raw_allocate asserts that a DataPtr's
// context is its data), so what a counted allocation needs at free time sits in a header in
// front of the data instead of in a context object. 64 bytes keep the data as aligned as the
// inner allocator made the block.
constexpr std::size_t kHeaderBytes = 64;

struct CountedHeader {
    std::shared_ptr<CpuAllocationTracker::Counters> counters; // a tensor may outlive the tracker
    std::int64_t bytes = 0;
    c10::DeleterFnPtr inner_free = nullptr;
};
static_assert(sizeof(CountedHeader) <= kHeaderBytes);

void free_counted(void* data) {
    if (!data) {
        return;
    }
    void* block = static_cast<char*>(data) - kHeaderBytes;
    auto* header = static_cast<CountedHeader*>(block);
    header->counters->live.fetch_sub(header->bytes);
    const c10::DeleterFnPtr inner_free = header->inner_free;
    header->~CountedHeader();
    inner_free(block);
}

} // namespace

class CpuAllocationTracker::CountingAllocator : public c10::Allocator {
public:
    CountingAllocator(c10::Allocator* inner, std::shared_ptr<Counters> counters)
        : inner_(inner)
        , counters_(std::move(counters)) {}

#if TORCH_VERSION_MAJOR >= 2 && (TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 3)
    c10::DataPtr allocate(size_t bytes) override {
        return counted(bytes);
    }
    void copy_data(void* dest, const void* src, std::size_t count) const override {
        default_copy_data(dest, src, count);
    }
#else
    c10::DataPtr allocate(size_t bytes) const override {
        return counted(bytes);
    }
#endif
    c10::DeleterFnPtr raw_deleter() const override {
        return &free_counted;
    }

private:
    c10::DataPtr counted(size_t bytes) const {
        void* block = inner_->raw_allocate(bytes + kHeaderBytes);
        new (block)
            CountedHeader{counters_, static_cast<std::int64_t>(bytes), inner_->raw_deleter()};
        counters_->add(static_cast<std::int64_t>(bytes));
        void* data = static_cast<char*>(block) + kHeaderBytes;
        return {data, data, &free_counted, c10::Device(c10::kCPU)};
    }

    c10::Allocator* inner_;
    std::shared_ptr<Counters> counters_;
};

CpuAllocationTracker::CpuAllocationTracker()
    : counters_(std::make_shared<Counters>())
    , previous_(c10::GetCPUAllocator()) {
    allocator_ = std::make_unique<CountingAllocator>(previous_, counters_);
    // The highest priority, so it replaces whatever is registered.
    c10::SetCPUAllocator(allocator_.get(), 255);
}

CpuAllocationTracker::~CpuAllocationTracker() {
    c10::SetCPUAllocator(previous_, 255);
    // Counted tensors still alive are freed through free_counted, which needs neither this
    // object nor its allocator.
}

std::int64_t CpuAllocationTracker::live_bytes() const {
    return counters_->live.load();
}

std::int64_t CpuAllocationTracker::peak_bytes() const {
    return counters_->peak.load();
}

void CpuAllocationTracker::reset_peak() {
    counters_->peak.store(counters_->live.load());
}

} // namespace tuneframe::core
