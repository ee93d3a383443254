#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"

#include <vector>

namespace tuneframe::dist {

// ZeRO stage 2 over the data-parallel ranks: each rank owns a contiguous run of the trainable
// parameters (about 1/N of their elements) and keeps optimizer state and gradients for those
// only. After backward the gradients are laid out owner by owner in one flat buffer, padded to
// equal shards, and reduce-scattered, so each rank receives the averaged gradients it owns and
// drops the rest; after its optimizer step each rank's updated parameters are all-gathered back
// into every replica. Parameter-granular shards keep every optimizer (8-bit, CPU offload) usable
// unchanged, and the state stays keyed by parameter name, so a checkpoint resumes on any world
// size.
class ZeroSharding {
public:
    ZeroSharding(Communicator& group, core::NamedTensors parameters, double divisor);

    // The parameters this rank steps: hand these to the optimizer.
    core::NamedTensors owned() const;
    bool owns(const std::string& name) const;
    int owner_of(std::size_t index) const { return owner_[index]; }

    // After backward: this rank's parameters get the averaged gradients; the others lose theirs.
    void reduce_scatter_gradients();
    // After the optimizer step: every rank's parameters get the owners' values.
    void all_gather_parameters();

private:
    // Every gradient at its owner's shard; shards padded to equal length.
    at::Tensor flat_gradients() const;

    Communicator& group_;
    core::NamedTensors parameters_;
    double divisor_;
    std::vector<int> owner_;
    std::vector<std::int64_t> shard_offset_; // of each parameter within its owner's shard
    std::int64_t shard_numel_ = 0;           // the largest shard; every shard is padded to it
    c10::ScalarType wire_type_ = at::kFloat;
};

} // namespace tuneframe::dist
