#pragma once

#include "common/training_job.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::dist {

// A run's ranks laid out as a pp x dp x sp x tp mesh, with one group per axis (ColossalAI's
// ProcessGroupMesh). Tensor-parallel neighbours are innermost, since their all-reduces run
// twice in every block and want one node's links; sequence-parallel ranks next (an all-to-all
// around each attention); data-parallel replicas next (one exchange per step); pipeline stages
// outermost, as Megatron places them, since they pass only one activation per micro-batch to
// their neighbour and so are the axis that best crosses nodes:
// rank = ((pp * dp_size + dp) * sp_size + sp) * tp_size + tp.
class ParallelMesh {
public:
    struct Coordinates {
        int pp = 0;
        int dp = 0;
        int sp = 0;
        int tp = 0;
    };

    // The mesh of `parallel` over `world_size` ranks; a BadInput error saying why when the plan
    // cannot run: sizes that do not divide the world, `heads` (the transformer's attention
    // heads; 0 when unknown) that tensor and sequence parallelism cannot split between them, or
    // fewer `layers` (its blocks; 0 when unknown) than pipeline stages.
    static ParallelMesh of(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads, std::int64_t layers = 0);

    int dp_size() const { return dp_; }
    int sp_size() const { return sp_; }
    int tp_size() const { return tp_; }
    int pp_size() const { return pp_; }
    int world_size() const { return pp_ * dp_ * sp_ * tp_; }
    // 0: every replica keeps whole optimizer state and gradients; 1 or 2: ZeRO's stages.
    int zero_stage() const { return zero_stage_; }

    Coordinates coordinates(int rank) const;
    int rank(const Coordinates& at) const;
    // The ranks sharing `rank`'s sample tokens (same pp, dp and tp coordinates), in sp order.
    std::vector<int> sequence_group(int rank) const;
    // The ranks holding the other shards of `rank`'s layers (same pp, dp and sp), in tp order.
    std::vector<int> tensor_group(int rank) const;
    // The stages `rank`'s micro-batches pass through (same dp, sp and tp), in pp order.
    std::vector<int> pipeline_group(int rank) const;
    // The ranks holding the same shard as `rank` (same pp and tp): the group its gradients are
    // averaged over, in rank order.
    std::vector<int> replica_group(int rank) const;

    // "pp2 x dp2 x tp2", "sp2", "1 rank": for messages and the studio.
    std::string describe() const;

private:
    // The ranks that differ from `rank` in `axis` alone (of `size` positions), in its order.
    std::vector<int> along(int rank, int Coordinates::*axis, int size) const;

    int pp_ = 1;
    int dp_ = 1;
    int sp_ = 1;
    int tp_ = 1;
    int zero_stage_ = 0;
};

// The blocks [first, end) of pipeline stage `stage` of `stages` over a model of `layers` blocks.
// CogVideoX's blocks cost the same, so each stage gets an even share; the blocks left over go
// to the last stages, because under 1F1B stage s holds P - s micro-batches' activations and the
// last stages the fewest.
std::pair<std::int64_t, std::int64_t> pipeline_stage_blocks(std::int64_t layers, int stages,
                                                            int stage);

// The ZeRO stage of a plan: ddp 0, zero1 1, zero2 2, hybrid its zero_stage.
int zero_stage_of(const common::ParallelSettings& parallel);

} // namespace tuneframe::dist
