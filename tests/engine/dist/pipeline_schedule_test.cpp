// Pipeline parallelism at the schedule level: four ranks as threads of this process over real
// Gloo groups, laid out pp2 x sp2 on a four-head model, run four micro-batches through two
// stages on the 1F1B schedule. The stages' gradients, joined, equal the whole model's summed over
// the micro-batches; each stage keeps no more micro-batches in flight than there are stages; and
// the stages exchange exactly the tokens the plan claims.
#include "engine/dist/all_to_all_token_exchange.h"
#include "engine/dist/distributed_context.h"
#include "engine/dist/stage_tensors.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "engine/train/pipeline_schedule.h"
#include "tests/engine/dist/four_head_model.h"
#include "tests/support/free_port.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <exception>
#include <map>
#include <thread>

namespace tuneframe {
namespace {

using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;

constexpr int kStageRanks = 4;
constexpr std::int64_t kMicroBatches = 4;

// The tiny model (two blocks) with four heads, so sequence parallelism can split them.
CogVideoXTransformer3DModel seeded_staged_model() {
    return test::four_head_lora_model({"to_q", "to_k", "to_v", "to_out.0"});
}

struct PipelineMicroBatch {
    CogVideoXTransformerInputs inputs;
    at::Tensor loss_weights;
};

std::vector<PipelineMicroBatch> seeded_pipeline_micro_batches() {
    torch::manual_seed(4);
    std::vector<PipelineMicroBatch> batches;
    for (std::int64_t micro = 0; micro < kMicroBatches; ++micro) {
        PipelineMicroBatch batch;
        batch.inputs.hidden_states = torch::randn({1, 2, 16, 8, 8});
        batch.inputs.encoder_hidden_states = torch::randn({1, 7, 32});
        batch.inputs.timestep = torch::tensor({100 + 200 * micro}, torch::kInt64);
        batch.loss_weights = torch::randn({1, 2, 16, 8, 8});
        batches.push_back(batch);
    }
    return batches;
}

at::Tensor pipeline_loss_of(const at::Tensor& prediction, const PipelineMicroBatch& batch) {
    return (prediction * batch.loss_weights).sum() / static_cast<double>(kMicroBatches);
}

struct StageRankResult {
    std::vector<std::string> order; // "F0", "B0", ...
    std::int64_t most_in_flight = 0;
    std::map<std::string, at::Tensor> gradients; // every stage's, on the first stage
    dist::CollectiveCounts pipeline;
    std::exception_ptr failure;
};

StageRankResult run_stage_rank(int rank, int port, CogVideoXTransformer3DModel model,
                               const std::vector<PipelineMicroBatch>& batches) {
    StageRankResult result;
    try {
        dist::RendezvousEnvironment environment;
        environment.rank = rank;
        environment.local_rank = rank;
        environment.world_size = kStageRanks;
        environment.local_world_size = kStageRanks;
        environment.master_port = port;
        common::ParallelSettings parallel;
        parallel.plan = "hybrid";
        parallel.pp_size = 2;
        parallel.sp_size = 2;
        parallel.timeout_s = 120; // a rank that never arrives fails the test, not hangs it
        dist::DistributedContext context(environment, parallel, c10::Device(c10::kCPU), 4, 2);
        const auto [begin, end] = dist::pipeline_stage_blocks(2, 2, context.pp_rank());
        model->keep_stage(begin, end);
        model->set_token_exchange(
            std::make_shared<dist::AllToAllTokenExchange>(*context.sequence_group()));
        const bool last = context.pp_rank() == 1;
        std::int64_t in_flight = 0;
        train::PipelineStageWork work;
        work.received_shapes = [&](std::int64_t micro) {
            return model->stage_token_shapes(batches[static_cast<std::size_t>(micro)].inputs);
        };
        work.forward = [&, begin = begin, end = end](std::int64_t micro,
                                                     const models::StageTokens* received) {
            result.order.push_back("F" + std::to_string(micro));
            result.most_in_flight = std::max(result.most_in_flight, ++in_flight);
            const PipelineMicroBatch& batch = batches[static_cast<std::size_t>(micro)];
            models::StageOutput out = model->forward_stage(batch.inputs, begin, end, received);
            if (!last) {
                return train::StageResult{out.tokens, {}};
            }
            return train::StageResult{{}, pipeline_loss_of(out.prediction, batch)};
        };
        std::int64_t backwards = 0;
        work.begin_backward = [&](bool) {
            result.order.push_back("B" + std::to_string(backwards++));
        };
        work.end_backward = [&] {
            --in_flight;
        };
        train::PipelineSchedule(*context.pipeline_group(), at::kFloat, c10::Device(c10::kCPU))
            .run(kMicroBatches, work);
        result.pipeline = context.pipeline_group()->counts();
        // Each sequence-parallel rank holds its tokens' share of its stage's gradients.
        core::NamedTensors gradients;
        for (const auto& item : model->named_parameters()) {
            if (!item.value().grad().defined()) {
                continue;
            }
            at::Tensor gradient = item.value().grad().contiguous();
            context.sequence_group()->all_reduce(gradient);
            gradients.emplace_back(item.key(), gradient);
        }
        for (const auto& [name, gradient] :
             dist::gather_to_first_stage(*context.pipeline_group(), gradients)) {
            result.gradients[name] = gradient;
        }
    } catch (...) {
        result.failure = std::current_exception();
    }
    return result;
}

TEST(PipelineSchedule, TwoStagesWithSequenceParallelEqualTheWholeModelAndKeepFewInFlight) {
    at::set_num_threads(1);
    const std::vector<PipelineMicroBatch> batches = seeded_pipeline_micro_batches();
    CogVideoXTransformer3DModel whole = seeded_staged_model();
    for (const PipelineMicroBatch& batch : batches) {
        pipeline_loss_of(whole->forward(batch.inputs), batch).backward();
    }

    const int port = test::free_port();
    std::vector<StageRankResult> results(kStageRanks);
    std::vector<CogVideoXTransformer3DModel> models;
    for (int rank = 0; rank < kStageRanks; ++rank) {
        models.push_back(seeded_staged_model());
    }
    std::vector<std::thread> ranks;
    for (int rank = 0; rank < kStageRanks; ++rank) {
        ranks.emplace_back(
            [&, rank] { results[rank] = run_stage_rank(rank, port, models[rank], batches); });
    }
    for (std::thread& thread : ranks) {
        thread.join();
    }
    for (int rank = 0; rank < kStageRanks; ++rank) {
        SCOPED_TRACE("rank " + std::to_string(rank));
        if (results[rank].failure) {
            try {
                std::rethrow_exception(results[rank].failure);
            } catch (const std::exception& error) {
                FAIL() << error.what();
            }
        }
    }
    // Ranks 0 and 1 are the first stage (sp 0 and 1), ranks 2 and 3 the second.
    for (int rank : {0, 1}) {
        const StageRankResult& first = results[rank];
        EXPECT_EQ(first.order,
                  (std::vector<std::string>{"F0", "F1", "B0", "F2", "B1", "F3", "B2", "B3"}));
        EXPECT_EQ(first.most_in_flight, 2);
        // Each micro-batch: video tokens, text tokens and time embedding forward, their
        // three gradients back.
        EXPECT_EQ(first.pipeline.send, 3 * kMicroBatches);
        EXPECT_EQ(first.pipeline.recv, 3 * kMicroBatches);
    }
    for (int rank : {2, 3}) {
        EXPECT_EQ(results[rank].most_in_flight, 1);
        EXPECT_EQ(results[rank].order.size(), 2u * kMicroBatches);
    }
    const StageRankResult& joined = results[0];
    std::size_t compared = 0;
    for (const auto& item : whole->named_parameters()) {
        if (!item.value().grad().defined()) {
            continue;
        }
        ASSERT_EQ(joined.gradients.count(item.key()), 1u) << item.key();
        const at::Tensor& got = joined.gradients.at(item.key());
        EXPECT_LE((got - item.value().grad()).abs().max().item<double>(), 1e-5) << item.key();
        ++compared;
    }
    EXPECT_EQ(compared, joined.gradients.size());
    EXPECT_GT(compared, 8u);
}

} // namespace
} // namespace tuneframe
