#include "engine/dist/distributed_context.h"

#include "engine/core/error.h"

#include <numeric>

namespace tuneframe::dist {
namespace {

std::chrono::milliseconds milliseconds(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000));
}

void add(CollectiveCounts& total, const CollectiveCounts& more) {
    total.all_reduce += more.all_reduce;
    total.broadcast += more.broadcast;
    total.all_gather += more.all_gather;
    total.reduce += more.reduce;
    total.reduce_scatter += more.reduce_scatter;
    total.all_to_all += more.all_to_all;
    total.barrier += more.barrier;
    total.send += more.send;
    total.recv += more.recv;
    total.bytes += more.bytes;
}

// A group's name from its first member: every member derives the same one.
std::string group_name(const char* axis, const std::vector<int>& members) {
    return std::string(axis) + std::to_string(members.front());
}

} // namespace

void check_parallel_layout(const common::ParallelSettings& parallel, int world_size,
                           std::int64_t heads, std::int64_t layers) {
    ParallelMesh::of(parallel, world_size, heads, layers);
}

DistributedContext::DistributedContext(const RendezvousEnvironment& environment,
                                       const common::ParallelSettings& parallel, c10::Device device,
                                       std::int64_t heads, std::int64_t layers)
    : rank_(environment.rank)
    , mesh_(ParallelMesh::of(parallel, environment.world_size, heads, layers))
    , plan_(parallel.plan)
    , environment_(environment) {
    rendezvous_ = std::make_unique<Rendezvous>(
        environment, std::min(milliseconds(parallel.timeout_s), std::chrono::milliseconds(300000)),
        milliseconds(parallel.timeout_s));
    std::vector<int> everyone(static_cast<std::size_t>(world_size()));
    std::iota(everyone.begin(), everyone.end(), 0);
    world_ = rendezvous_->group("world", everyone, device);
    // Every rank builds its groups in the same axis order, so the stores' keys meet.
    if (mesh_.sp_size() > 1) {
        const std::vector<int> members = mesh_.sequence_group(rank_);
        sequence_ = rendezvous_->group(group_name("sp", members), members, device);
    }
    if (mesh_.tp_size() > 1) {
        const std::vector<int> members = mesh_.tensor_group(rank_);
        tensor_ = rendezvous_->group(group_name("tp", members), members, device);
    }
    if (mesh_.pp_size() > 1) {
        const std::vector<int> members = mesh_.pipeline_group(rank_);
        pipeline_ = rendezvous_->group(group_name("pp", members), members, device);
    }
    if (mesh_.tp_size() > 1 || mesh_.pp_size() > 1) {
        const std::vector<int> replicas = mesh_.replica_group(rank_);
        replica_ = rendezvous_->group(group_name("replica", replicas), replicas, device);
    }
}

DistributedContext::DistributedContext(const RendezvousEnvironment& environment,
                                       const common::ParallelSettings& parallel,
                                       std::unique_ptr<Communicator> world)
    : rank_(environment.rank)
    , mesh_(ParallelMesh::of(parallel, environment.world_size, 0))
    , plan_(parallel.plan)
    , environment_(environment)
    , world_(std::move(world)) {
    if (mesh_.sp_size() > 1 || mesh_.tp_size() > 1 || mesh_.pp_size() > 1) {
        throw core::Error(core::ErrorCode::Internal,
                          "a context over one given group cannot split sequences or layers");
    }
}

CollectiveCounts DistributedContext::counts() const {
    CollectiveCounts total = world_->counts();
    for (const auto* group : {sequence_.get(), tensor_.get(), pipeline_.get(), replica_.get()}) {
        if (group) {
            add(total, group->counts());
        }
    }
    return total;
}

} // namespace tuneframe::dist
