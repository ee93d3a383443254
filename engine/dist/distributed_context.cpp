#include "engine/dist/distributed_context.h"

#include "engine/core/error.h"

#include <numeric>

namespace tuneframe::dist {
namespace {

std::chrono::milliseconds milliseconds(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

} // namespace

void check_parallel_layout(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads) {
    const std::int64_t sp = parallel.plan == "hybrid" ? parallel.sp_size : 1;
    if (world_size % sp != 0) {
        throw core::Error(core::ErrorCode::BadInput,
                          "parallel.sp_size " + std::to_string(sp) + " does not divide the " +
                              std::to_string(world_size) + " ranks.",
                          "Choose an sp_size that divides the number of GPUs (ranks).");
    }
    if (heads > 0 && heads % sp != 0) {
        throw core::Error(core::ErrorCode::BadInput,
                          "Sequence parallelism splits the attention heads, and this model's " +
                              std::to_string(heads) + " heads do not divide by parallel.sp_size " +
                              std::to_string(sp) + ".",
                          "Choose an sp_size that divides " + std::to_string(heads) + ".");
    }
}

DistributedContext::DistributedContext(const RendezvousEnvironment& environment,
                                       const common::ParallelSettings& parallel, c10::Device device,
                                       std::int64_t heads)
    : rank_(environment.rank)
    , world_size_(environment.world_size)
    , sp_size_(parallel.plan == "hybrid" ? static_cast<int>(parallel.sp_size) : 1)
    , plan_(parallel.plan)
    , environment_(environment) {
    check_parallel_layout(parallel, world_size_, heads);
    rendezvous_ = std::make_unique<Rendezvous>(
        environment, std::min(milliseconds(parallel.timeout_s), std::chrono::milliseconds(300000)),
        milliseconds(parallel.timeout_s));
    std::vector<int> everyone(static_cast<std::size_t>(world_size_));
    std::iota(everyone.begin(), everyone.end(), 0);
    world_ = rendezvous_->group("world", everyone, device);
    if (sp_size_ > 1) {
        std::vector<int> members;
        const int first = dp_rank() * sp_size_;
        for (int i = 0; i < sp_size_; ++i) {
            members.push_back(first + i);
        }
        sequence_ = rendezvous_->group("sp" + std::to_string(dp_rank()), members, device);
    }
}

DistributedContext::DistributedContext(const RendezvousEnvironment& environment,
                                       const common::ParallelSettings& parallel,
                                       std::unique_ptr<Communicator> world)
    : rank_(environment.rank)
    , world_size_(environment.world_size)
    , sp_size_(1)
    , plan_(parallel.plan)
    , environment_(environment)
    , world_(std::move(world)) {
    check_parallel_layout(parallel, world_size_, 0);
}

CollectiveCounts DistributedContext::counts() const {
    CollectiveCounts total = world_->counts();
    if (sequence_) {
        const CollectiveCounts& sp = sequence_->counts();
        total.all_reduce += sp.all_reduce;
        total.broadcast += sp.broadcast;
        total.all_gather += sp.all_gather;
        total.reduce += sp.reduce;
        total.reduce_scatter += sp.reduce_scatter;
        total.all_to_all += sp.all_to_all;
        total.barrier += sp.barrier;
        total.bytes += sp.bytes;
    }
    return total;
}

} // namespace tuneframe::dist
