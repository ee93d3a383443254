// Tensor parallelism at the model level: four ranks as threads of this process over real Gloo
// groups, laid out tp2 x sp2 on a four-head model, give the whole model's output and, once the
// ranks' parts are summed and joined, its gradients; and exchange exactly the collectives the
// plan claims.
#include "engine/core/error.h"
#include "engine/dist/all_reduce_tensor_parallel.h"
#include "engine/dist/all_to_all_token_exchange.h"
#include "engine/dist/distributed_context.h"
#include "engine/dist/tensor_parallel_shards.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "tests/engine/dist/four_head_model.h"
#include "tests/support/free_port.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <exception>
#include <map>
#include <thread>

namespace tuneframe {
namespace {

using models::cogvideox::CogVideoXTransformer3DModel;
using models::cogvideox::CogVideoXTransformerInputs;

constexpr int kRanks = 4;

CogVideoXTransformer3DModel seeded_model() {
    return test::four_head_lora_model(
        {"to_q", "to_k", "to_v", "to_out.0", "ff.net.0.proj", "ff.net.2"});
}

struct Case {
    CogVideoXTransformerInputs inputs;
    at::Tensor loss_weights;
};

Case seeded_case() {
    torch::manual_seed(4);
    Case c;
    c.inputs.hidden_states = torch::randn({1, 2, 16, 8, 8});
    c.inputs.encoder_hidden_states = torch::randn({1, 7, 32});
    c.inputs.timestep = torch::tensor({500}, torch::kInt64);
    c.loss_weights = torch::randn({1, 2, 16, 8, 8});
    return c;
}

struct RankResult {
    at::Tensor output;
    std::map<std::string, at::Tensor> gradients; // whole, after summing and joining
    dist::CollectiveCounts tensor;               // of the step alone
    dist::CollectiveCounts sequence;
    std::exception_ptr failure;
};

// `model`: built by the caller, since the ranks' threads share the global generator.
RankResult run_rank(int rank, int port, CogVideoXTransformer3DModel model, const Case& c) {
    RankResult result;
    try {
        dist::RendezvousEnvironment environment;
        environment.rank = rank;
        environment.local_rank = rank;
        environment.world_size = kRanks;
        environment.local_world_size = kRanks;
        environment.master_port = port;
        common::ParallelSettings parallel;
        parallel.plan = "hybrid";
        parallel.tp_size = 2;
        parallel.sp_size = 2;
        parallel.timeout_s = 120; // a rank that never arrives fails the test, not hangs it
        dist::DistributedContext context(environment, parallel, c10::Device(c10::kCPU), 4, 0);
        model->split_blocks_over(
            std::make_shared<dist::AllReduceTensorParallel>(*context.tensor_group()));
        model->set_token_exchange(
            std::make_shared<dist::AllToAllTokenExchange>(*context.sequence_group()));
        result.output = model->forward(c.inputs);
        (result.output * c.loss_weights).sum().backward();
        result.tensor = context.tensor_group()->counts();
        result.sequence = context.sequence_group()->counts();

        // Each sequence-parallel rank holds its tokens' share of every gradient; each
        // tensor-parallel rank its heads' share of the replicated ones inside the split.
        core::NamedTensors gradients;
        for (const auto& item : model->named_parameters()) {
            at::Tensor gradient = item.value().grad().contiguous();
            context.sequence_group()->all_reduce(gradient);
            item.value().mutable_grad() = gradient;
            gradients.emplace_back(item.key(), item.value());
        }
        dist::TensorParallelShards shards(*context.tensor_group(),
                                          models::cogvideox::tensor_parallel_layout(*model));
        shards.sum_partial_gradients(gradients);
        core::NamedTensors parts;
        for (const auto& [name, parameter] : gradients) {
            parts.emplace_back(name, parameter.grad());
        }
        for (const auto& [name, whole] : shards.gather(parts)) {
            result.gradients[name] = whole;
        }
    } catch (...) {
        result.failure = std::current_exception();
    }
    return result;
}

TEST(TensorParallel, TwoByTwoWithSequenceParallelEqualsTheWholeModel) {
    at::set_num_threads(1);
    CogVideoXTransformer3DModel whole = seeded_model();
    const Case c = seeded_case();
    const at::Tensor expected = whole->forward(c.inputs);
    (expected * c.loss_weights).sum().backward();

    const int port = test::free_port();
    std::vector<RankResult> results(kRanks);
    std::vector<CogVideoXTransformer3DModel> models;
    for (int rank = 0; rank < kRanks; ++rank) {
        models.push_back(seeded_model());
    }
    std::vector<std::thread> ranks;
    for (int rank = 0; rank < kRanks; ++rank) {
        ranks.emplace_back([&, rank] { results[rank] = run_rank(rank, port, models[rank], c); });
    }
    for (std::thread& thread : ranks) {
        thread.join();
    }
    const std::int64_t blocks = test::four_head_config().num_layers;
    for (int rank = 0; rank < kRanks; ++rank) {
        SCOPED_TRACE("rank " + std::to_string(rank));
        const RankResult& result = results[rank];
        if (result.failure) {
            try {
                std::rethrow_exception(result.failure);
            } catch (const std::exception& error) {
                FAIL() << error.what();
            }
        }
        EXPECT_LE((result.output - expected).abs().max().item<double>(), 1e-5);
        ASSERT_EQ(result.gradients.size(), whole->named_parameters().size());
        for (const auto& item : whole->named_parameters()) {
            const at::Tensor& got = result.gradients.at(item.key());
            ASSERT_EQ(got.sizes(), item.value().grad().sizes()) << item.key();
            EXPECT_LE((got - item.value().grad()).abs().max().item<double>(), 1e-5) << item.key();
        }
        // Per block: two partial outputs summed going forward, twice more for the recomputed
        // forward (checkpointing), and two input gradients summed going back.
        EXPECT_EQ(result.tensor.all_reduce, 6 * blocks);
        // Per block: q, k and v traded for heads and the output traded back, both ways.
        EXPECT_EQ(result.sequence.all_to_all, 8 * blocks + 4 * blocks);
    }
    // The split is real: each rank holds half of a column-split weight and of a row-split one.
    const auto part = [&](const std::string& name) {
        return models[1]->named_parameters()[name].sizes().vec();
    };
    EXPECT_EQ(part("transformer_blocks.0.attn1.to_q.weight"), (std::vector<std::int64_t>{32, 64}));
    EXPECT_EQ(part("transformer_blocks.0.ff.net.2.weight"), (std::vector<std::int64_t>{64, 128}));
}

} // namespace
} // namespace tuneframe
