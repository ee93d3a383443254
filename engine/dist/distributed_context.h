#pragma once

#include "common/training_job.h"
#include "engine/dist/communicator.h"
#include "engine/dist/parallel_mesh.h"
#include "engine/dist/rendezvous.h"

#include <memory>

namespace tuneframe::dist {

// The ranks of a run, the mesh its plan lays them out on (parallel_mesh.h) and a process group
// for each axis this rank takes part in: the run's one plan object, which the trainer, the data
// sampler, checkpoints and validation ask where a rank stands.
class DistributedContext {
public:
    // Meets the other ranks and builds the groups for `parallel`. `heads`: the transformer's
    // attention heads, which sequence and tensor parallelism split (a clear error when they do
    // not divide); `layers`: its blocks, which pipeline stages share. `device`: this rank's
    // (cuda:LOCAL_RANK, made current before, or the CPU).
    DistributedContext(const RendezvousEnvironment& environment,
                       const common::ParallelSettings& parallel, c10::Device device,
                       std::int64_t heads, std::int64_t layers);
    // A context over a group already made (tests: an in-process recording group), without
    // sequence or tensor parallelism.
    DistributedContext(const RendezvousEnvironment& environment,
                       const common::ParallelSettings& parallel,
                       std::unique_ptr<Communicator> world);

    int rank() const { return rank_; }
    int world_size() const { return mesh_.world_size(); }
    bool is_main() const { return rank_ == 0; }
    const ParallelMesh& mesh() const { return mesh_; }
    int dp_rank() const { return mesh_.coordinates(rank_).dp; }
    int dp_size() const { return mesh_.dp_size(); }
    int sp_rank() const { return mesh_.coordinates(rank_).sp; }
    int sp_size() const { return mesh_.sp_size(); }
    int tp_rank() const { return mesh_.coordinates(rank_).tp; }
    int tp_size() const { return mesh_.tp_size(); }
    int pp_rank() const { return mesh_.coordinates(rank_).pp; }
    int pp_size() const { return mesh_.pp_size(); }
    const std::string& plan() const { return plan_; }
    const RendezvousEnvironment& environment() const { return environment_; }

    Communicator& world() { return *world_; }
    // The ranks sharing one sample's tokens; null without sequence parallelism.
    Communicator* sequence_group() { return sequence_.get(); }
    // The ranks holding the other shards of this rank's layers; null without tensor parallelism.
    Communicator* tensor_group() { return tensor_.get(); }
    // The stages this rank's micro-batches pass through; null without pipeline parallelism.
    Communicator* pipeline_group() { return pipeline_.get(); }
    // The ranks holding the same shard of every layer, whose gradients are averaged together:
    // the world without tensor or pipeline parallelism.
    Communicator& replica_group() { return replica_ ? *replica_ : *world_; }
    // What this rank's groups exchanged so far, added up.
    CollectiveCounts counts() const;

private:
    int rank_;
    ParallelMesh mesh_;
    std::string plan_;
    RendezvousEnvironment environment_;
    std::unique_ptr<Rendezvous> rendezvous_;
    std::unique_ptr<Communicator> world_;
    std::unique_ptr<Communicator> sequence_;
    std::unique_ptr<Communicator> tensor_;
    std::unique_ptr<Communicator> pipeline_;
    std::unique_ptr<Communicator> replica_;
};

// Checks the plan against the world before any rank connects (also used by `launch`).
void check_parallel_layout(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads, std::int64_t layers = 0);

} // namespace tuneframe::dist
