#include "engine/dist/parallel_mesh.h"

#include "engine/core/error.h"

namespace tuneframe::dist {
namespace {

// `field`: the job field the studio shows the message under.
core::Error plan_error(const std::string& field, const std::string& what, const std::string& fix) {
    core::Error error(core::ErrorCode::BadInput, what, fix);
    error.with_field(field);
    return error;
}

std::string number(std::int64_t value) {
    return std::to_string(value);
}

std::string ranks(int count) {
    return count == 1 ? "1 rank" : number(count) + " ranks";
}

} // namespace

std::pair<std::int64_t, std::int64_t> pipeline_stage_blocks(std::int64_t layers, int stages,
                                                            int stage) {
    const std::int64_t share = layers / stages;
    const std::int64_t extra = layers % stages;
    // Stages from `stages - extra` on get one block more.
    const std::int64_t plain = stages - extra;
    const std::int64_t first =
        stage <= plain ? stage * share : plain * share + (stage - plain) * (share + 1);
    return {first, first + share + (stage >= plain ? 1 : 0)};
}

int zero_stage_of(const common::ParallelSettings& parallel) {
    if (parallel.plan == "zero1") {
        return 1;
    }
    if (parallel.plan == "zero2") {
        return 2;
    }
    return parallel.plan == "hybrid" ? static_cast<int>(parallel.zero_stage) : 0;
}

ParallelMesh ParallelMesh::of(const common::ParallelSettings& parallel, int world_size,
                              std::int64_t heads, std::int64_t layers) {
    const bool hybrid = parallel.plan == "hybrid";
    const std::int64_t sp = hybrid ? parallel.sp_size : 1;
    const std::int64_t tp = hybrid ? parallel.tp_size : 1;
    const std::int64_t pp = hybrid ? parallel.pp_size : 1;
    if (sp < 1 || tp < 1 || pp < 1) {
        throw plan_error("parallel.tp_size",
                         "parallel.sp_size, tp_size and pp_size must be 1 or more.",
                         "Set each to a whole number of ranks.");
    }
    if (world_size % pp != 0) {
        throw plan_error("parallel.pp_size",
                         "parallel.pp_size " + number(pp) + " does not divide the run's " +
                             ranks(world_size) + ".",
                         "Choose a number of pipeline stages that divides the number of GPUs "
                         "(ranks).");
    }
    if (layers > 0 && layers < pp) {
        throw plan_error("parallel.pp_size",
                         "Each pipeline stage holds at least one block, and this model has " +
                             number(layers) + " blocks for parallel.pp_size " + number(pp) +
                             " stages.",
                         "Choose at most " + number(layers) + " pipeline stages.");
    }
    if (world_size % sp != 0) {
        throw plan_error("parallel.sp_size",
                         "parallel.sp_size " + number(sp) + " does not divide the run's " +
                             ranks(world_size) + ".",
                         "Choose an sp_size that divides the number of GPUs (ranks).");
    }
    if (world_size % tp != 0 || world_size % (sp * tp * pp) != 0) {
        throw plan_error("parallel.tp_size",
                         "parallel.tp_size " + number(tp) + " x sp_size " + number(sp) +
                             (pp > 1 ? " x pp_size " + number(pp) : std::string()) +
                             " does not divide the run's " + ranks(world_size) + ".",
                         "Choose sizes whose product divides the number of GPUs (ranks).");
    }
    if (heads > 0 && heads % sp != 0) {
        throw plan_error("parallel.sp_size",
                         "Sequence parallelism splits the attention heads, and this model's " +
                             number(heads) + " heads do not divide by parallel.sp_size " +
                             number(sp) + ".",
                         "Choose an sp_size that divides " + number(heads) + ".");
    }
    if (heads > 0 && heads % (sp * tp) != 0) {
        throw plan_error("parallel.tp_size",
                         "Tensor parallelism gives each rank a share of the attention heads, "
                         "and sequence parallelism splits that share again: this model's " +
                             number(heads) + " heads do not divide by tp_size " + number(tp) +
                             " x sp_size " + number(sp) + ".",
                         "Choose tp_size and sp_size whose product divides " + number(heads) + ".");
    }
    ParallelMesh mesh;
    mesh.sp_ = static_cast<int>(sp);
    mesh.tp_ = static_cast<int>(tp);
    mesh.pp_ = static_cast<int>(pp);
    mesh.dp_ = world_size / static_cast<int>(sp * tp * pp);
    mesh.zero_stage_ = zero_stage_of(parallel);
    return mesh;
}

ParallelMesh::Coordinates ParallelMesh::coordinates(int rank) const {
    Coordinates at;
    at.tp = rank % tp_;
    at.sp = (rank / tp_) % sp_;
    at.dp = (rank / (tp_ * sp_)) % dp_;
    at.pp = rank / (tp_ * sp_ * dp_);
    return at;
}

int ParallelMesh::rank(const Coordinates& at) const {
    return ((at.pp * dp_ + at.dp) * sp_ + at.sp) * tp_ + at.tp;
}

std::vector<int> ParallelMesh::along(int rank, int Coordinates::*axis, int size) const {
    Coordinates at = coordinates(rank);
    std::vector<int> members;
    for (at.*axis = 0; at.*axis < size; ++(at.*axis)) {
        members.push_back(this->rank(at));
    }
    return members;
}

std::vector<int> ParallelMesh::sequence_group(int rank) const {
    return along(rank, &Coordinates::sp, sp_);
}

std::vector<int> ParallelMesh::tensor_group(int rank) const {
    return along(rank, &Coordinates::tp, tp_);
}

std::vector<int> ParallelMesh::pipeline_group(int rank) const {
    return along(rank, &Coordinates::pp, pp_);
}

// Within this rank's stage, the tensor-parallel rank is the innermost coordinate: every
// tp_size-th rank of the stage from this one's.
std::vector<int> ParallelMesh::replica_group(int rank) const {
    const Coordinates at = coordinates(rank);
    const int stage_ranks = dp_ * sp_ * tp_;
    std::vector<int> members;
    for (int member = at.pp * stage_ranks + at.tp; member < (at.pp + 1) * stage_ranks;
         member += tp_) {
        members.push_back(member);
    }
    return members;
}

std::string ParallelMesh::describe() const {
    std::string text;
    for (const auto& [name, size] :
         {std::pair<const char*, int>{"pp", pp_}, {"dp", dp_}, {"sp", sp_}, {"tp", tp_}}) {
        if (size > 1) {
            text += (text.empty() ? "" : " x ") + std::string(name) + std::to_string(size);
        }
    }
    return text.empty() ? "1 rank" : text;
}

} // namespace tuneframe::dist
