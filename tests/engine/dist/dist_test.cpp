// The pieces of distributed training that need no second process: reading torchrun's and
// SLURM's variables, the plan's layout checks, the distributed bucket sampler and the
// communicator's device rule.
#include "engine/core/error.h"
#include "engine/dist/cuda_visible_devices.h"
#include "engine/dist/distributed_context.h"
#include "engine/dist/parallel_mesh.h"
#include "engine/dist/rendezvous_environment.h"
#include "engine/train/sampling/distributed_bucket_sampler.h"
#include "tests/engine/dist/recording_communicator.h"

#include <ATen/ops/zeros.h>
#include <gtest/gtest.h>

#include <map>

namespace tuneframe {
namespace {

using Variables = std::map<std::string, std::string>;

std::optional<dist::RendezvousEnvironment> read(const Variables& variables) {
    return dist::RendezvousEnvironment::read(
        [&](const std::string& name) -> std::optional<std::string> {
            const auto found = variables.find(name);
            return found == variables.end() ? std::nullopt
                                            : std::optional<std::string>(found->second);
        });
}

TEST(CudaVisibleDevices, WorkersGetTheGpusAsNamed) {
    EXPECT_EQ(dist::worker_visible_devices({"0", "1"}, std::nullopt), "0,1");
    EXPECT_EQ(dist::worker_visible_devices({"3"}, std::nullopt), "3");
}

TEST(CudaVisibleDevices, IndicesCountWithinAnInheritedList) {
    EXPECT_EQ(dist::worker_visible_devices({"0", "1"}, std::string("2,3")), "2,3");
    EXPECT_EQ(dist::worker_visible_devices({"1"}, std::string(" 2, 3 ")), "3");
    EXPECT_EQ(dist::worker_visible_devices({"1", "0"}, std::string("GPU-aaaa-1111,GPU-bbbb-2222")),
              "GPU-bbbb-2222,GPU-aaaa-1111");
    // A UUID is passed on as it is.
    EXPECT_EQ(dist::worker_visible_devices({"GPU-cccc"}, std::string("2,3")), "GPU-cccc");
}

TEST(CudaVisibleDevices, AnIndexPastTheInheritedListIsBadInput) {
    try {
        dist::worker_visible_devices({"2"}, std::string("2,3"));
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("CUDA_VISIBLE_DEVICES=\"2,3\""), std::string::npos)
            << error.what();
    }
    EXPECT_THROW(dist::worker_visible_devices({"0"}, std::string("")), core::Error);
}

TEST(CudaVisibleDevices, TheEngineAsksForPciBusOrder) {
    ::setenv("CUDA_DEVICE_ORDER", "FASTEST_FIRST", 1);
    dist::use_pci_bus_device_order();
    EXPECT_STREQ(std::getenv("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
}

TEST(RendezvousEnvironment, ReadsTorchrunVariables) {
    const auto env = read({{"RANK", "3"},
                           {"WORLD_SIZE", "8"},
                           {"LOCAL_RANK", "1"},
                           {"LOCAL_WORLD_SIZE", "2"},
                           {"MASTER_ADDR", "node7"},
                           {"MASTER_PORT", "29611"}});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->rank, 3);
    EXPECT_EQ(env->world_size, 8);
    EXPECT_EQ(env->local_rank, 1);
    EXPECT_EQ(env->local_world_size, 2);
    EXPECT_EQ(env->master_addr, "node7");
    EXPECT_EQ(env->master_port, 29611);
    EXPECT_EQ(env->source, "torchrun");
    EXPECT_FALSE(env->under_launch);
}

TEST(RendezvousEnvironment, ReadsSlurmVariablesAndTheFirstNodeAsMaster) {
    const auto env = read({{"SLURM_PROCID", "5"},
                           {"SLURM_NTASKS", "8"},
                           {"SLURM_LOCALID", "1"},
                           {"SLURM_NTASKS_PER_NODE", "4(x2)"},
                           {"SLURM_JOB_NODELIST", "gpu[03-04]"}});
    ASSERT_TRUE(env);
    EXPECT_EQ(env->rank, 5);
    EXPECT_EQ(env->world_size, 8);
    EXPECT_EQ(env->local_rank, 1);
    EXPECT_EQ(env->local_world_size, 4);
    EXPECT_EQ(env->master_addr, "gpu03");
    EXPECT_EQ(env->master_port, 29500);
    EXPECT_EQ(env->source, "slurm");
}

TEST(RendezvousEnvironment, NoVariablesIsASingleProcessAndBadOnesAreNamed) {
    EXPECT_FALSE(read({}));
    try {
        read({{"RANK", "2"}, {"WORLD_SIZE", "2"}});
        FAIL() << "a rank at the world size was accepted";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("rank 2"), std::string::npos) << error.what();
    }
    try {
        read({{"RANK", "0"}, {"WORLD_SIZE", "two"}});
        FAIL() << "a word as the world size was accepted";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("WORLD_SIZE"), std::string::npos);
    }
}

TEST(RendezvousEnvironment, FirstSlurmHost) {
    EXPECT_EQ(dist::first_slurm_host("gpu[03-05,07],login1"), "gpu03");
    EXPECT_EQ(dist::first_slurm_host("a1,a2"), "a1");
    EXPECT_EQ(dist::first_slurm_host("single"), "single");
    EXPECT_EQ(dist::first_slurm_host("n[7,9]"), "n7");
}

TEST(ParallelLayout, HeadsThatDoNotDivideAreAClearError) {
    common::ParallelSettings hybrid;
    hybrid.plan = "hybrid";
    hybrid.sp_size = 4;
    EXPECT_NO_THROW(dist::check_parallel_layout(hybrid, 8, 48));
    try {
        dist::check_parallel_layout(hybrid, 8, 30);
        FAIL() << "30 heads split four ways";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("30 heads"), std::string::npos) << error.what();
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
    }
    EXPECT_THROW(dist::check_parallel_layout(hybrid, 6, 48), core::Error);
    common::ParallelSettings ddp;
    EXPECT_NO_THROW(dist::check_parallel_layout(ddp, 3, 30));
}

TEST(ParallelMesh, TensorParallelNeighboursAreInnermostAndEachAxisHasItsGroup) {
    common::ParallelSettings hybrid;
    hybrid.plan = "hybrid";
    hybrid.sp_size = 2;
    hybrid.tp_size = 2;
    hybrid.zero_stage = 1;
    const dist::ParallelMesh mesh = dist::ParallelMesh::of(hybrid, 8, 48);
    EXPECT_EQ(mesh.dp_size(), 2);
    EXPECT_EQ(mesh.zero_stage(), 1);
    EXPECT_EQ(mesh.describe(), "dp2 x sp2 x tp2");
    // Rank 5 = (dp 1 * 2 + sp 0) * 2 + tp 1.
    const dist::ParallelMesh::Coordinates at = mesh.coordinates(5);
    EXPECT_EQ(at.dp, 1);
    EXPECT_EQ(at.sp, 0);
    EXPECT_EQ(at.tp, 1);
    EXPECT_EQ(mesh.rank(at), 5);
    EXPECT_EQ(mesh.tensor_group(5), (std::vector<int>{4, 5}));
    EXPECT_EQ(mesh.sequence_group(5), (std::vector<int>{5, 7}));
    EXPECT_EQ(mesh.replica_group(5), (std::vector<int>{1, 3, 5, 7}));
    // Without tensor parallelism the layout is the sequence-parallel one it always was.
    hybrid.tp_size = 1;
    EXPECT_EQ(dist::ParallelMesh::of(hybrid, 8, 48).sequence_group(5), (std::vector<int>{4, 5}));
    common::ParallelSettings zero2;
    zero2.plan = "zero2";
    EXPECT_EQ(dist::ParallelMesh::of(zero2, 3, 30).zero_stage(), 2);
    EXPECT_EQ(dist::ParallelMesh::of(zero2, 1, 30).describe(), "1 rank");
}

TEST(ParallelMesh, PipelineStagesAreOutermostAndHoldEvenShares) {
    common::ParallelSettings hybrid;
    hybrid.plan = "hybrid";
    hybrid.pp_size = 2;
    hybrid.tp_size = 2;
    const dist::ParallelMesh mesh = dist::ParallelMesh::of(hybrid, 8, 48, 42);
    EXPECT_EQ(mesh.dp_size(), 2);
    EXPECT_EQ(mesh.describe(), "pp2 x dp2 x tp2");
    // Rank 6 = ((pp 1 * 2 + dp 1) * 1 + sp 0) * 2 + tp 0.
    const dist::ParallelMesh::Coordinates at = mesh.coordinates(6);
    EXPECT_EQ(at.pp, 1);
    EXPECT_EQ(at.dp, 1);
    EXPECT_EQ(at.tp, 0);
    EXPECT_EQ(mesh.rank(at), 6);
    EXPECT_EQ(mesh.pipeline_group(6), (std::vector<int>{2, 6}));
    EXPECT_EQ(mesh.tensor_group(6), (std::vector<int>{6, 7}));
    // Gradients are averaged within a stage only.
    EXPECT_EQ(mesh.replica_group(6), (std::vector<int>{4, 6}));
    EXPECT_EQ(mesh.replica_group(1), (std::vector<int>{1, 3}));
    // 42 blocks over 4 stages: 10, 10, 11, 11, in order and with none left out.
    std::int64_t next = 0;
    for (int stage = 0; stage < 4; ++stage) {
        const auto [first, end] = dist::pipeline_stage_blocks(42, 4, stage);
        EXPECT_EQ(first, next);
        EXPECT_EQ(end - first, stage < 2 ? 10 : 11);
        next = end;
    }
    EXPECT_EQ(next, 42);
    EXPECT_EQ(dist::pipeline_stage_blocks(30, 1, 0),
              (std::pair<std::int64_t, std::int64_t>{0, 30}));
    // More stages than blocks, and stages that do not divide the ranks.
    hybrid.tp_size = 1;
    hybrid.pp_size = 4;
    try {
        dist::ParallelMesh::of(hybrid, 4, 2, 2);
        FAIL() << "4 stages of a 2-block model";
    } catch (const core::Error& error) {
        EXPECT_NE(std::string(error.what()).find("2 blocks"), std::string::npos) << error.what();
        EXPECT_EQ(error.field(), "parallel.pp_size");
    }
    EXPECT_THROW(dist::ParallelMesh::of(hybrid, 6, 48, 42), core::Error);
}

TEST(ParallelMesh, ImpossiblePlansSayWhy) {
    common::ParallelSettings hybrid;
    hybrid.plan = "hybrid";
    hybrid.tp_size = 4;
    hybrid.sp_size = 2;
    const auto reason = [&](int world, std::int64_t heads) {
        try {
            dist::ParallelMesh::of(hybrid, world, heads);
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            return std::string(error.what());
        }
        return std::string();
    };
    EXPECT_EQ(reason(8, 48), "");
    // 30 heads split 4 x 2 ways (2b under tp4 x sp2), and 6 ranks for a plan of 8.
    EXPECT_NE(reason(8, 30).find("30 heads do not divide by tp_size 4 x sp_size 2"),
              std::string::npos)
        << reason(8, 30);
    EXPECT_NE(reason(12, 48).find("does not divide the run's 12 ranks"), std::string::npos)
        << reason(12, 48);
    EXPECT_NE(reason(1, 48).find("the run's 1 rank."), std::string::npos) << reason(1, 48);
}

std::vector<std::string> mixed_buckets() {
    std::vector<std::string> buckets;
    for (int i = 0; i < 11; ++i) {
        buckets.push_back(i % 3 == 0 ? "49x480x720" : "13x256x256");
    }
    return buckets;
}

TEST(DistributedBucketSampler, RanksSplitTheGlobalBatchesOfOneRank) {
    const train::DistributedBucketSampler one(mixed_buckets(), 4, 7);
    const train::DistributedBucketSampler first(mixed_buckets(), 2, 7, 0, 2);
    const train::DistributedBucketSampler second(mixed_buckets(), 2, 7, 1, 2);
    const auto global = one.epoch(3);
    const auto a = first.epoch(3);
    const auto b = second.epoch(3);
    ASSERT_EQ(a.size(), global.size());
    ASSERT_EQ(b.size(), global.size());
    const auto buckets = mixed_buckets();
    for (std::size_t step = 0; step < global.size(); ++step) {
        ASSERT_EQ(a[step].size(), 2u);
        ASSERT_EQ(b[step].size(), 2u);
        // The same bucket on every rank at every step.
        for (std::int64_t index : b[step]) {
            EXPECT_EQ(buckets[index], buckets[a[step][0]]);
        }
        if (global[step].size() == 4) {
            std::vector<std::int64_t> joined = a[step];
            joined.insert(joined.end(), b[step].begin(), b[step].end());
            EXPECT_EQ(joined, global[step]);
        } else {
            // A short last batch is filled from its own samples, never left empty.
            for (std::int64_t index : b[step]) {
                EXPECT_NE(std::find(global[step].begin(), global[step].end(), index),
                          global[step].end());
            }
        }
    }
    EXPECT_EQ(first.epoch(3), a); // deterministic
    EXPECT_NE(first.epoch(4), a); // and reshuffled per epoch
}

} // namespace
} // namespace tuneframe

namespace tuneframe {
namespace {

// NCCL refuses CPU tensors only on a GPU machine; the communicator's own check makes the same
// mistake fail here, naming the collective and both devices.
TEST(Communicator, RefusesATensorOffItsDevice) {
    test::RecordingCommunicator group{c10::Device(c10::kMeta)};
    at::Tensor host = at::zeros({3});
    try {
        group.all_reduce(host);
        FAIL() << "a CPU tensor was accepted by a group on meta";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Internal);
        const std::string message = error.what();
        EXPECT_NE(message.find("all_reduce"), std::string::npos) << message;
        EXPECT_NE(message.find("cpu"), std::string::npos) << message;
        EXPECT_NE(message.find("meta"), std::string::npos) << message;
    }
    at::Tensor there = at::zeros({3}, at::TensorOptions().device(c10::kMeta));
    EXPECT_NO_THROW(group.all_reduce(there));
}

// The bookkeeping helpers build their tensors on the group's device, whatever it is.
TEST(Communicator, HostValuesTravelOnTheGroupsDevice) {
    test::RecordingCommunicator group{c10::Device(c10::kMeta),
                                      {"all_reduce", "all_gather", "broadcast"}};
    EXPECT_THROW(dist::all_reduce_values(group, {1.0, 2.0}), test::RecordingCommunicator::Stopped);
    EXPECT_THROW(dist::all_gather_values(group, {1, 2, 3}), test::RecordingCommunicator::Stopped);
    EXPECT_THROW(dist::broadcast_value(group, 7, 0), test::RecordingCommunicator::Stopped);
    ASSERT_EQ(group.calls().size(), 3u);
    for (const auto& call : group.calls()) {
        EXPECT_EQ(call.device, c10::Device(c10::kMeta)) << call.collective;
    }
    // On the CPU they come back with their values.
    test::RecordingCommunicator cpu{c10::Device(c10::kCPU)};
    EXPECT_EQ(dist::all_reduce_values(cpu, {1.5, 2.5}), (std::vector<double>{1.5, 2.5}));
    EXPECT_EQ(dist::all_gather_values(cpu, {4, 5}), (std::vector<std::int64_t>{4, 5}));
    EXPECT_EQ(dist::broadcast_value(cpu, 9, 0), 9);
}

TEST(RendezvousEnvironment, TorchrunsAgentStoreIsJoinedAsAClient) {
    const auto env = read({{"RANK", "0"},
                           {"WORLD_SIZE", "2"},
                           {"MASTER_PORT", "29611"},
                           {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                           {"TORCHELASTIC_RESTART_COUNT", "3"}});
    ASSERT_TRUE(env);
    EXPECT_TRUE(env->agent_store);
    EXPECT_EQ(env->restart_count, 3);
    const auto plain = read({{"RANK", "0"}, {"WORLD_SIZE", "2"}});
    ASSERT_TRUE(plain);
    EXPECT_FALSE(plain->agent_store);
}

} // namespace
} // namespace tuneframe
