#pragma once

#include "common/training_job.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tuneframe::dist {

// A run's ranks laid out as a dp x sp x tp mesh, with one group per axis (ColossalAI's
// ProcessGroupMesh). Tensor-parallel neighbours are innermost, since their all-reduces run
// twice in every block and want one node's links; sequence-parallel ranks next (an all-to-all
// around each attention); data-parallel replicas outermost (one exchange per step):
// rank = (dp * sp_size + sp) * tp_size + tp.
class ParallelMesh {
public:
    struct Coordinates {
        int dp = 0;
        int sp = 0;
        int tp = 0;
    };

    // The mesh of `parallel` over `world_size` ranks; a BadInput error saying why when the plan
    // cannot run: sizes that do not divide the world, or `heads` (the transformer's attention
    // heads; 0 when unknown) that tensor and sequence parallelism cannot split between them.
    static ParallelMesh of(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads);

    int dp_size() const { return dp_; }
    int sp_size() const { return sp_; }
    int tp_size() const { return tp_; }
    int world_size() const { return dp_ * sp_ * tp_; }
    // 0: every replica keeps whole optimizer state and gradients; 1 or 2: ZeRO's stages.
    int zero_stage() const { return zero_stage_; }

    Coordinates coordinates(int rank) const;
    int rank(const Coordinates& at) const;
    // The ranks sharing `rank`'s sample tokens (same dp and tp coordinates), in sp order.
    std::vector<int> sequence_group(int rank) const;
    // The ranks holding the other shards of `rank`'s layers (same dp and sp), in tp order.
    std::vector<int> tensor_group(int rank) const;
    // The ranks holding the same shard as `rank` (same tp): the group its gradients are
    // averaged over, in rank order.
    std::vector<int> replica_group(int rank) const;

    // "dp2 x tp2", "sp2", "1 rank": for messages and the studio.
    std::string describe() const;

private:
    // The ranks that differ from `rank` in `axis` alone (of `size` positions), in its order.
    std::vector<int> along(int rank, int Coordinates::*axis, int size) const;

    int dp_ = 1;
    int sp_ = 1;
    int tp_ = 1;
    int zero_stage_ = 0;
};

// The ZeRO stage of a plan: ddp 0, zero1 1, zero2 2, hybrid its zero_stage.
int zero_stage_of(const common::ParallelSettings& parallel);

} // namespace tuneframe::dist
