#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"

#include <string>
#include <vector>

namespace tuneframe::dist {

// Which data-parallel rank owns which trainable parameter under ZeRO-1 and ZeRO-2, and the
// all-gather that brings every rank's updated parameters back into every replica.
//
// Each rank owns a contiguous run of parameters (about 1/N of their elements) and keeps optimizer
// state, and under ZeRO-2 gradients, for those only. Whole parameters rather than element
// slices (DeepSpeed's and ColossalAI's partitions) keep every optimizer usable unchanged — 8-bit
// blocks, CPU offload and CAME's row and column factors need a parameter's shape — and keep the
// optimizer state keyed by parameter name, which is what lets a checkpoint resume on any number
// of ranks. The price is balance to within one parameter, small next to a model's size.
class ZeroSharding {
public:
    // `chunk_bytes`: how much of each rank's shard one all-gather carries.
    ZeroSharding(Communicator& group, core::NamedTensors parameters,
                 std::int64_t chunk_bytes = 25 << 20);

    // The parameters this rank steps: hand these to the optimizer.
    core::NamedTensors owned() const;
    bool owns(const std::string& name) const;
    const std::vector<int>& owners() const { return owner_; }
    // Bytes of the parameters this rank owns.
    std::int64_t owned_bytes() const;

    // ZeRO-1, after the gradients were averaged everywhere: the other ranks' gradients go.
    void drop_unowned_gradients();
    // After the optimizer step: every rank's parameters get the owners' values, shard chunk by
    // shard chunk, so the gather never needs a buffer of the whole model.
    void all_gather_parameters();

private:
    Communicator& group_;
    core::NamedTensors parameters_;
    std::vector<int> owner_;
    std::vector<std::int64_t> shard_offset_; // of each parameter within its owner's shard
    std::int64_t shard_numel_ = 0;           // the largest shard; every shard is padded to it
    std::int64_t chunk_numel_ = 0;
    c10::ScalarType wire_type_ = at::kFloat;
};

} // namespace tuneframe::dist
