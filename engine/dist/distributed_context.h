#pragma once

#include "common/training_job.h"
#include "engine/dist/communicator.h"
#include "engine/dist/rendezvous.h"

#include <memory>

namespace tuneframe::dist {

// The ranks of a run and the groups the plan needs. Ranks are laid out data-parallel-major:
// rank = dp_rank * sp_size + sp_rank, so a sequence-parallel group is sp_size neighbouring
// ranks (one node's GPUs, where all-to-all is cheap) and the data-parallel groups stride
// across them.
class DistributedContext {
public:
    // Meets the other ranks and builds the groups for `parallel`. `heads`: the transformer's
    // attention heads, which sequence parallelism splits (a clear error when they do not
    // divide).
    // `device`: this rank's (cuda:LOCAL_RANK, made current before, or the CPU).
    DistributedContext(const RendezvousEnvironment& environment,
                       const common::ParallelSettings& parallel, c10::Device device,
                       std::int64_t heads);
    // A context over a group already made (tests: an in-process recording group), without
    // sequence parallelism.
    DistributedContext(const RendezvousEnvironment& environment,
                       const common::ParallelSettings& parallel,
                       std::unique_ptr<Communicator> world);

    int rank() const { return rank_; }
    int world_size() const { return world_size_; }
    bool is_main() const { return rank_ == 0; }
    int dp_rank() const { return rank_ / sp_size_; }
    int dp_size() const { return world_size_ / sp_size_; }
    int sp_rank() const { return rank_ % sp_size_; }
    int sp_size() const { return sp_size_; }
    const std::string& plan() const { return plan_; }
    const RendezvousEnvironment& environment() const { return environment_; }

    Communicator& world() { return *world_; }
    // The ranks sharing one sample's tokens; null without sequence parallelism.
    Communicator* sequence_group() { return sequence_.get(); }
    // What this rank's groups exchanged so far, added up.
    CollectiveCounts counts() const;

private:
    int rank_;
    int world_size_;
    int sp_size_;
    std::string plan_;
    RendezvousEnvironment environment_;
    std::unique_ptr<Rendezvous> rendezvous_;
    std::unique_ptr<Communicator> world_;
    std::unique_ptr<Communicator> sequence_;
};

// Checks the plan against the world before any rank connects (also used by `launch`).
void check_parallel_layout(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads);

} // namespace tuneframe::dist
