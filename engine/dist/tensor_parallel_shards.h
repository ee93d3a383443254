#pragma once

#include "engine/core/tensor_io.h"
#include "engine/dist/communicator.h"
#include "engine/models/tensor_parallel.h"

#include <map>
#include <string>

namespace tuneframe::dist {

// Between a tensor-parallel rank's parts of the parameters and the whole ones a checkpoint
// holds: gathered over the group when saving, cut to this rank's part when loading. So a
// checkpoint is the same whatever plan wrote it, and resumes under any other (Megatron's
// distributed checkpoints, done the simple way: the whole tensors pass through each rank).
class TensorParallelShards {
public:
    TensorParallelShards(Communicator& group, models::TensorParallelLayout layout);

    const models::TensorParallelLayout& layout() const { return layout_; }
    // Whether `name` (a parameter) is split over the group.
    bool split(const std::string& name) const { return layout_.split_dim.count(name) > 0; }

    // The whole tensors (a collective: every rank of the group calls it with the same names).
    // Parameters by name; optimizer state as "<parameter>.<key>", where state shaped like its
    // split parameter is gathered along the same dimension and other state passes unchanged.
    core::NamedTensors gather(const core::NamedTensors& tensors);
    // This rank's parts of whole tensors named as above, in place.
    void cut(std::map<std::string, at::Tensor>& tensors) const;

    // Sums the gradients of the replicated parameters whose gradient each rank holds a share of
    // (the layout's partial_gradients) over the group, in one all-reduce.
    void sum_partial_gradients(const core::NamedTensors& parameters);

private:
    // The dimension `key` (a parameter or its state) is split along, or -1.
    std::int64_t split_dim_of(const std::string& key) const;

    Communicator& group_;
    models::TensorParallelLayout layout_;
};

} // namespace tuneframe::dist
