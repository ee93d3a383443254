#include "engine/train/plan_exchange.h"

#include "engine/core/error.h"
#include "engine/dist/all_reduce_tensor_parallel.h"
#include "engine/dist/all_to_all_token_exchange.h"
#include "engine/dist/distributed_context.h"
#include "engine/dist/gradients/bucketed_all_reduce.h"
#include "engine/dist/gradients/zero_gradient_reducer.h"
#include "engine/dist/gradients/zero_sharding.h"
#include "engine/dist/stage_tensors.h"
#include "engine/dist/tensor_parallel_shards.h"
#include "engine/models/diffusion_transformer.h"

#include <torch/torch.h>

namespace tuneframe::train {

PlanExchange::PlanExchange(dist::DistributedContext& dist, const common::TrainingJob& job)
    : dist_(dist)
    , job_(job) {}

PlanExchange::~PlanExchange() = default;

void PlanExchange::split(models::DiffusionTransformerImpl& transformer) {
    const std::int64_t layers = transformer.num_blocks();
    dist::check_parallel_layout(job_.parallel, dist_.world_size(),
                                transformer.num_attention_heads(), layers);
    stage_blocks_ = dist::pipeline_stage_blocks(layers, dist_.pp_size(), dist_.pp_rank());
    if (dist_.tensor_group()) {
        // The job's reader has refused optimizers whose state cannot be split with the layers.
        transformer.split_blocks_over(
            std::make_shared<dist::AllReduceTensorParallel>(*dist_.tensor_group()));
        tensor_shards_ = std::make_unique<dist::TensorParallelShards>(
            *dist_.tensor_group(), transformer.tensor_parallel_layout());
    }
    if (dist_.pipeline_group()) {
        transformer.keep_stage(stage_blocks_.first, stage_blocks_.second);
    }
}

NamedParameters PlanExchange::join(const NamedParameters& trainable,
                                   models::DiffusionTransformerImpl& transformer) {
    dist::Communicator& replicas_group = dist_.replica_group();
    {
        // Every replica starts from its group's first rank's values, whatever each loaded or
        // drew (the ranks of a tensor-parallel group hold different parts).
        torch::NoGradGuard no_grad;
        for (const auto& [name, parameter] : trainable) {
            at::Tensor values = parameter.detach().contiguous();
            replicas_group.broadcast(values, 0);
            parameter.copy_(values);
        }
    }
    if (dist_.sequence_group()) {
        transformer.set_token_exchange(
            std::make_shared<dist::AllToAllTokenExchange>(*dist_.sequence_group()));
    }
    // Gradients are averaged over the ranks holding the same part of the model (all of them
    // without tensor parallelism). The sequence-parallel ranks of a sample hold partial
    // gradients of it, so the sum over that group divided by the data-parallel replicas is
    // the average.
    const double replicas = dist_.dp_size();
    const auto bucket_bytes = static_cast<std::int64_t>(job_.parallel.bucket_mb * (1 << 20));
    const int zero_stage = dist_.mesh().zero_stage();
    if (zero_stage == 0) {
        all_reduce_ = std::make_unique<dist::BucketedAllReduce>(replicas_group, trainable, replicas,
                                                                bucket_bytes);
        return trainable;
    }
    if (job_.optimizer.name == "prodigy") {
        throw core::Error(core::ErrorCode::BadInput,
                          "Prodigy estimates one step size from all parameters together, which "
                          "the per-rank shards of " +
                              job_.parallel.plan + " cannot do.",
                          "Use parallel.plan \"ddp\" with Prodigy, or another optimizer with " +
                              job_.parallel.plan + ".");
    }
    sharding_ = std::make_unique<dist::ZeroSharding>(replicas_group, trainable, bucket_bytes);
    if (zero_stage == 2) {
        zero_reducer_ = std::make_unique<dist::ZeroGradientReducer>(
            replicas_group, trainable, sharding_->owners(), replicas, bucket_bytes);
    } else {
        all_reduce_ = std::make_unique<dist::BucketedAllReduce>(replicas_group, trainable, replicas,
                                                                bucket_bytes);
    }
    return sharding_->owned();
}

void PlanExchange::begin_backward(bool last) {
    if (all_reduce_ && last) {
        all_reduce_->arm();
    }
    if (zero_reducer_) {
        zero_reducer_->begin_backward();
    }
}

void PlanExchange::end_backward() {
    if (zero_reducer_) {
        zero_reducer_->end_backward();
    }
}

// ddp and zero1 average them all (zero1 then keeps only its own), zero2 has reduced each
// backward's already; then tensor-parallel parts are summed.
void PlanExchange::synchronize_gradients(const NamedParameters& stepped) {
    if (all_reduce_) {
        all_reduce_->finish();
        if (sharding_) {
            sharding_->drop_unowned_gradients();
        }
    } else if (zero_reducer_) {
        zero_reducer_->publish();
    }
    if (tensor_shards_) {
        tensor_shards_->sum_partial_gradients(stepped);
    }
}

GradNorm PlanExchange::clip_gradients(const NamedParameters& stepped, double max_norm) {
    if (!sharding_ && !tensor_shards_ && !dist_.pipeline_group()) {
        return clip_grad_norm(stepped, max_norm);
    }
    // ZeRO ranks own disjoint parameters, so the world sums them; without ZeRO every replica
    // holds its stage's parameters, the tensor-parallel group sums their parts and the pipeline
    // group the stages. Replicated parameters are counted by one rank of the tensor group.
    std::vector<dist::Communicator*> groups;
    if (sharding_) {
        groups.push_back(&dist_.world());
    } else {
        groups = {dist_.tensor_group(), dist_.pipeline_group()};
    }
    const bool counts_replicated = dist_.tp_rank() == 0;
    auto counted = [this, counts_replicated](const std::string& name) {
        return counts_replicated || !tensor_shards_ || tensor_shards_->split(name);
    };
    return clip_grad_norm(
        stepped, max_norm,
        [&groups](const at::Tensor& local) {
            at::Tensor total = local.to(torch::kFloat).reshape({1});
            for (dist::Communicator* group : groups) {
                if (group) {
                    total = total.to(group->device()).contiguous();
                    group->all_reduce(total);
                }
            }
            return total.reshape({});
        },
        counted);
}

void PlanExchange::finish_step() {
    if (sharding_) {
        sharding_->all_gather_parameters();
    }
}

std::int64_t PlanExchange::gradient_bytes() const {
    return zero_reducer_ ? zero_reducer_->peak_bytes() : all_reduce_->held_bytes();
}

void PlanExchange::reset_peak_gradient_bytes() {
    if (zero_reducer_) {
        zero_reducer_->reset_peak();
    }
}

core::NamedTensors PlanExchange::whole(const core::NamedTensors& tensors, bool join_stages) const {
    core::NamedTensors joined = tensor_shards_ ? tensor_shards_->gather(tensors) : tensors;
    // Only rank 0's pipeline writes checkpoints and validates.
    const bool rank_0s_pipeline =
        dist_.dp_rank() == 0 && dist_.sp_rank() == 0 && dist_.tp_rank() == 0;
    if (join_stages && dist_.pipeline_group() && rank_0s_pipeline) {
        joined = dist::gather_to_first_stage(*dist_.pipeline_group(), joined);
    }
    return joined;
}

void PlanExchange::cut(std::map<std::string, at::Tensor>& tensors) const {
    if (tensor_shards_) {
        tensor_shards_->cut(tensors);
    }
}

} // namespace tuneframe::train
