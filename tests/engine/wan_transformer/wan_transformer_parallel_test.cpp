// Tensor and sequence parallelism of the Wan transformer: ranks as threads of this process over
// real Gloo groups (tp2, sp2 and tp2 x sp2 on a four-head I2V model with LoRA adapters, every
// block checkpointed, and tp2 x sp2 with the last two blocks of each rank's split swapped) give
// the whole model's output and, once the ranks' parts are summed and joined, its gradients.
#include "engine/dist/all_reduce_tensor_parallel.h"
#include "engine/dist/all_to_all_token_exchange.h"
#include "engine/dist/distributed_context.h"
#include "engine/dist/tensor_parallel_shards.h"
#include "engine/lora/lora_injection.h"
#include "tests/engine/wan_transformer/tiny_wan.h"
#include "tests/support/free_port.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <exception>
#include <thread>

namespace tuneframe::models::wan {
namespace {

// The same model on every caller: seeded weights, rank-2 adapters on every split layer with
// lora_B drawn too (a fresh B of zeros would leave lora_A without a gradient), every block
// checkpointed, in training mode.
WanTransformer3DModel seeded_lora_model() {
    auto model = test::seeded_wan_model(test::tiny_wan_config(true));
    lora::LoRAConfig adapters;
    adapters.rank = 2;
    adapters.target_modules = {"to_q",       "to_k",       "to_v",           "to_out.0",
                               "add_k_proj", "add_v_proj", "ffn.net.0.proj", "ffn.net.2"};
    lora::inject_lora(*model, adapters);
    torch::NoGradGuard no_grad;
    for (auto& item : model->named_parameters()) {
        if (item.key().find("lora_B") != std::string::npos) {
            item.value().normal_(0.0, 0.1);
        }
    }
    model->set_gradient_checkpointing(true);
    model->train();
    return model;
}

struct Case {
    TransformerInputs inputs;
    at::Tensor loss_weights;
};

Case seeded_case(bool per_token) {
    test::TinyShape shape;
    shape.per_token = per_token;
    Case c{test::seeded_wan_inputs(test::tiny_wan_config(true), shape), {}};
    torch::manual_seed(5);
    c.loss_weights = torch::randn({2, 16, 3, 6, 10});
    return c;
}

struct RankResult {
    at::Tensor output;
    std::map<std::string, at::Tensor> gradients; // whole, after summing and joining
    models::TensorParallelLayout layout;
    std::vector<std::int64_t> to_q_shape;
    std::exception_ptr failure;
};

RankResult run_rank(int rank, int world, int port, const common::ParallelSettings& parallel,
                    WanTransformer3DModel model, const Case& c, std::int64_t swapped) {
    RankResult result;
    try {
        dist::RendezvousEnvironment environment;
        environment.rank = rank;
        environment.local_rank = rank;
        environment.world_size = world;
        environment.local_world_size = world;
        environment.master_port = port;
        dist::DistributedContext context(environment, parallel, c10::Device(c10::kCPU),
                                         model->num_attention_heads(), model->num_blocks());
        if (context.tensor_group()) {
            model->split_blocks_over(
                std::make_shared<dist::AllReduceTensorParallel>(*context.tensor_group()));
        }
        if (context.sequence_group()) {
            model->set_token_exchange(
                std::make_shared<dist::AllToAllTokenExchange>(*context.sequence_group()));
        }
        // After the split, as the trainer does: each rank swaps its own share of the blocks.
        model->swap_blocks(swapped, c10::kCPU);
        result.output = model->forward(c.inputs);
        (result.output * c.loss_weights).sum().backward();

        // Each sequence-parallel rank holds its tokens' share of every gradient; each
        // tensor-parallel rank its heads' share of the replicated ones inside the split.
        core::NamedTensors parameters;
        for (const auto& item : model->named_parameters()) {
            at::Tensor gradient = item.value().grad().contiguous();
            if (context.sequence_group()) {
                context.sequence_group()->all_reduce(gradient);
            }
            item.value().mutable_grad() = gradient;
            parameters.emplace_back(item.key(), item.value());
        }
        result.layout = model->tensor_parallel_layout();
        result.to_q_shape = model->named_parameters()["blocks.0.attn1.to_q.weight"].sizes().vec();
        core::NamedTensors parts;
        if (context.tensor_group()) {
            dist::TensorParallelShards shards(*context.tensor_group(), result.layout);
            shards.sum_partial_gradients(parameters);
            for (const auto& [name, parameter] : parameters) {
                parts.emplace_back(name, parameter.grad());
            }
            parts = shards.gather(parts);
        } else {
            for (const auto& [name, parameter] : parameters) {
                parts.emplace_back(name, parameter.grad());
            }
        }
        for (const auto& [name, whole] : parts) {
            result.gradients[name] = whole;
        }
    } catch (...) {
        result.failure = std::current_exception();
    }
    return result;
}

struct Plan {
    std::string name;
    std::int64_t tp;
    std::int64_t sp;
    bool per_token;
    std::int64_t swapped = 0; // memory.blocks_to_swap
};

class WanTransformerParallel : public ::testing::TestWithParam<Plan> {};

TEST_P(WanTransformerParallel, EqualsTheWholeModel) {
    const Plan plan = GetParam();
    at::set_num_threads(1);
    const Case c = seeded_case(plan.per_token);
    WanTransformer3DModel whole = seeded_lora_model();
    const at::Tensor expected = whole->forward(c.inputs);
    (expected * c.loss_weights).sum().backward();

    common::ParallelSettings parallel;
    parallel.plan = "hybrid";
    parallel.tp_size = plan.tp;
    parallel.sp_size = plan.sp;
    parallel.timeout_s = 120; // a rank that never arrives fails the test, not hangs it
    const int world = static_cast<int>(plan.tp * plan.sp);
    const int port = test::free_port();
    // Built here: the ranks' threads would share the global generator.
    std::vector<WanTransformer3DModel> models;
    for (int rank = 0; rank < world; ++rank) {
        models.push_back(seeded_lora_model());
    }
    std::vector<RankResult> results(static_cast<std::size_t>(world));
    std::vector<std::thread> ranks;
    for (int rank = 0; rank < world; ++rank) {
        ranks.emplace_back([&, rank] {
            results[static_cast<std::size_t>(rank)] =
                run_rank(rank, world, port, parallel, models[static_cast<std::size_t>(rank)], c,
                         plan.swapped);
        });
    }
    for (std::thread& thread : ranks) {
        thread.join();
    }
    const double scale = expected.abs().max().item<double>();
    for (int rank = 0; rank < world; ++rank) {
        SCOPED_TRACE("rank " + std::to_string(rank));
        const RankResult& result = results[static_cast<std::size_t>(rank)];
        if (result.failure) {
            try {
                std::rethrow_exception(result.failure);
            } catch (const std::exception& error) {
                FAIL() << error.what();
            }
        }
        EXPECT_LE((result.output - expected).abs().max().item<double>(), 1e-5 * scale);
        ASSERT_EQ(result.gradients.size(), whole->named_parameters().size());
        for (const auto& item : whole->named_parameters()) {
            const at::Tensor& got = result.gradients.at(item.key());
            const at::Tensor& want = item.value().grad();
            ASSERT_EQ(got.sizes(), want.sizes()) << item.key();
            EXPECT_LE((got - want).abs().max().item<double>(),
                      1e-5 * (1 + want.abs().max().item<double>()))
                << item.key();
        }
        // The split is real, and the layout names it.
        const std::int64_t rows = 64 / plan.tp;
        EXPECT_EQ(result.to_q_shape, (std::vector<std::int64_t>{rows, 64}));
        if (plan.tp > 1) {
            EXPECT_EQ(result.layout.split_dim.at("blocks.0.attn2.norm_added_k.weight"), 0);
            EXPECT_EQ(result.layout.split_dim.at("blocks.2.attn1.to_out.0.weight"), 1);
            EXPECT_TRUE(result.layout.partial_gradients.count("blocks.1.ffn.net.2.lora_B.weight"));
            EXPECT_FALSE(result.layout.split_dim.count("blocks.1.attn1.to_out.0.bias"));
        } else {
            EXPECT_TRUE(result.layout.empty());
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Plans, WanTransformerParallel,
                         ::testing::Values(Plan{"tp2", 2, 1, false}, Plan{"sp2", 1, 2, true},
                                           Plan{"tp2_sp2", 2, 2, true},
                                           Plan{"tp2_sp2_swap2", 2, 2, true, 2}),
                         [](const auto& info) { return info.param.name; });

} // namespace
} // namespace tuneframe::models::wan
