// NCCL takes only tensors on its rank's GPU, so a trainer that builds a bookkeeping tensor on the
// CPU (a loss to average, memory figures to gather) kills every multi-GPU run at its first step,
// and CPU-only test machines with Gloo never notice. Here the model lives on a second device that
// exists on any machine (host_backed_device.h) and the group is a recording one that claims that
// device: every collective of a whole run, bookkeeping included, must hand it tensors there.
#include "engine/core/tensor_io.h"
#include "engine/dist/distributed_context.h"
#include "engine/train/trainer.h"
#include "tests/engine/dist/recording_communicator.h"
#include "tests/engine/trainer/host_backed_device.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

struct DeviceRun {
    TrainResult result;
    std::vector<test::RecordingCommunicator::Call> calls;
};

// One rank of `plan` whose group claims the host-backed device, so the model goes there too.
DeviceRun run_on_host_backed_device(const std::string& plan, const fs::path& run) {
    common::TrainingJob job = test_support::small_job(3, 1e-3);
    job.parallel.plan = plan;
    auto group = std::make_unique<test::RecordingCommunicator>(test::host_backed_device());
    const test::RecordingCommunicator& recorded = *group;
    dist::DistributedContext context(dist::RendezvousEnvironment{}, job.parallel, std::move(group));
    DeviceRun outcome;
    outcome.result = test_support::run_trainer(job, run, nullptr, &context);
    outcome.calls = recorded.calls();
    return outcome;
}

TEST(HostBackedDevice, ComputesWhatTheCpuComputesAndReportsItsOwnDevice) {
    torch::manual_seed(0);
    const torch::Tensor weight = torch::randn({4, 3, 2, 2}, torch::requires_grad());
    const torch::Tensor input = torch::randn({2, 3, 6, 6});
    const torch::Tensor there = weight.detach().to(test::host_backed_device()).requires_grad_();
    const torch::Tensor out = torch::conv2d(input.to(there.device()), there).relu().sum();
    torch::conv2d(input, weight).relu().sum().backward();
    out.backward();
    EXPECT_EQ(out.device(), test::host_backed_device());
    EXPECT_EQ(there.grad().device(), test::host_backed_device());
    EXPECT_TRUE(torch::allclose(there.grad().cpu(), weight.grad(), 1e-5, 1e-6));
}

class TrainerOnAnotherDevice : public ::testing::TestWithParam<std::string> {};

TEST_P(TrainerOnAnotherDevice, EveryCollectiveGetsTensorsOnTheModelsDevice) {
    test::TemporaryDirectory dir;
    const DeviceRun there = run_on_host_backed_device(GetParam(), dir / "device");
    EXPECT_EQ(there.result.status, "finished");
    EXPECT_EQ(there.result.steps, 3);

    std::set<std::string> kinds;
    for (const auto& call : there.calls) {
        kinds.insert(call.collective);
        EXPECT_EQ(call.device, test::host_backed_device()) << call.collective;
    }
    // The bookkeeping travels every step (losses, gradient norms, memory figures of every rank)
    // besides the gradients themselves.
    EXPECT_GE(there.calls.size(), 3u * 3u);
    EXPECT_TRUE(kinds.count("all_reduce")) << "no all-reduce recorded";
    EXPECT_TRUE(kinds.count("all_gather")) << "no all-gather recorded";

    // The same job on the CPU without a group ends with the same adapter: the run really
    // trained on that device rather than failing over to the CPU.
    const TrainResult cpu =
        test_support::run_trainer(test_support::small_job(3, 1e-3), dir / "cpu");
    const auto expected = core::read_tensors(cpu.last_checkpoint / "trainable.safetensors");
    const auto actual = core::read_tensors(there.result.last_checkpoint / "trainable.safetensors");
    ASSERT_EQ(actual.size(), expected.size());
    for (const auto& [name, tensor] : expected) {
        EXPECT_TRUE(torch::allclose(actual.at(name), tensor, 1e-4, 1e-6)) << name;
    }
}

INSTANTIATE_TEST_SUITE_P(Plans, TrainerOnAnotherDevice, ::testing::Values("ddp", "zero1", "zero2"));

} // namespace
} // namespace tuneframe::train
