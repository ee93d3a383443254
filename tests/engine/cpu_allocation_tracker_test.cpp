#include "engine/core/device/cpu_allocation_tracker.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

namespace tuneframe::core {
namespace {

TEST(CpuAllocationTracker, CountsLiveTensorBytesAndKeepsThePeak) {
    CpuAllocationTracker tracker;
    const std::int64_t before = tracker.live_bytes();
    {
        at::Tensor a = torch::empty({1024, 256}); // 1 MiB of float32
        EXPECT_EQ(tracker.live_bytes() - before, 1 << 20);
        at::Tensor b = a * 2; // another MiB
        EXPECT_EQ(tracker.live_bytes() - before, 2 << 20);
    }
    EXPECT_EQ(tracker.live_bytes(), before);
    EXPECT_GE(tracker.peak_bytes() - before, 2 << 20);
    tracker.reset_peak();
    EXPECT_EQ(tracker.peak_bytes(), tracker.live_bytes());
}

TEST(CpuAllocationTracker, TensorsOutliveItAndTheAllocatorComesBack) {
    at::Tensor survivor;
    {
        CpuAllocationTracker tracker;
        survivor = torch::full({1000}, 3.0);
    }
    // Freed after the tracker is gone, through its own header: no crash, values intact.
    EXPECT_EQ(survivor.sum().item<double>(), 3000.0);
    survivor = at::Tensor();
    at::Tensor after = torch::ones({10});
    EXPECT_EQ(after.sum().item<double>(), 10.0);
}

} // namespace
} // namespace tuneframe::core
