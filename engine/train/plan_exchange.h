#pragma once

#include "common/training_job.h"
#include "engine/train/optim/clip_grad_norm.h"
#include "engine/train/optim/optimizer.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace tuneframe::models {
class DiffusionTransformerImpl;
}

namespace tuneframe::dist {
class BucketedAllReduce;
class DistributedContext;
class TensorParallelShards;
class ZeroGradientReducer;
class ZeroSharding;
} // namespace tuneframe::dist

namespace tuneframe::train {

// What one rank of a distributed run exchanges with the others, as its plan says, around each
// training step: the model's split (tensor parallelism), the replicas' starting values, the
// gradients (DDP buckets, ZeRO-1/2 shards, tensor-parallel partial sums), the global gradient
// norm, the parameters after a sharded step, and the whole tensors a checkpoint holds. The
// trainer calls it at those points and knows nothing of the plan's groups.
class PlanExchange {
public:
    PlanExchange(dist::DistributedContext& dist, const common::TrainingJob& job);
    ~PlanExchange();
    PlanExchange(const PlanExchange&) = delete;
    PlanExchange& operator=(const PlanExchange&) = delete;

    // Tensor parallelism keeps this rank's share of every block, pipeline parallelism this
    // rank's stage's blocks: after any LoRA adapters (so they are split with their layers),
    // before the trainable parameters are collected.
    void split(models::DiffusionTransformerImpl& transformer);
    // The blocks [first, end) this rank runs: all of them without pipeline parallelism.
    std::pair<std::int64_t, std::int64_t> stage_blocks() const { return stage_blocks_; }
    // Joins the trainable parameters and the model to the plan (equal starting values on every
    // replica, the sequence split, the gradient exchange) and returns the parameters this rank's
    // optimizer steps. A plan the model's heads cannot take, or an optimizer the plan cannot
    // shard, is a BadInput error.
    NamedParameters join(const NamedParameters& trainable,
                         models::DiffusionTransformerImpl& transformer);

    // Around each micro-batch's backward; `last`: the one whose gradients are exchanged.
    void begin_backward(bool last);
    void end_backward();
    // After the step's last backward: every stepped parameter holds its averaged gradient.
    void synchronize_gradients(const NamedParameters& stepped);
    // clip_grad_norm over the whole model, however its gradients are spread over the ranks.
    GradNorm clip_gradients(const NamedParameters& stepped, double max_norm);
    // After the optimizer step: replicas get the owners' updated values (ZeRO).
    void finish_step();

    // The most gradient bytes this rank held during the step, as the plan counts them.
    std::int64_t gradient_bytes() const;
    void reset_peak_gradient_bytes();
    // Whether each rank keeps only its own parameters' optimizer state (ZeRO-1/2).
    bool shards_optimizer_state() const { return sharding_ != nullptr; }

    // The whole model's tensors (parameters, or optimizer state by "<parameter>.<key>") from
    // this rank's parts: a collective under tensor parallelism, a copy otherwise. Under
    // pipeline parallelism every rank calls it and the first stage of rank 0's pipeline gets
    // every stage's tensors (the others their stage's); `join_stages` false keeps each stage's
    // own (ZeRO's per-stage optimizer shards).
    core::NamedTensors whole(const core::NamedTensors& tensors, bool join_stages = true) const;
    // This rank's parts of whole tensors, in place.
    void cut(std::map<std::string, at::Tensor>& tensors) const;

private:
    dist::DistributedContext& dist_;
    const common::TrainingJob& job_;
    std::unique_ptr<dist::BucketedAllReduce> all_reduce_;
    std::unique_ptr<dist::ZeroSharding> sharding_;
    std::unique_ptr<dist::ZeroGradientReducer> zero_reducer_;
    std::unique_ptr<dist::TensorParallelShards> tensor_shards_;
    std::pair<std::int64_t, std::int64_t> stage_blocks_{0, 0};
};

} // namespace tuneframe::train
