// Optimizer behaviour beyond the golden case: the factory and its errors, precision handling,
// 8-bit and offloaded AdamW against plain AdamW, clipping edge cases.
#include "engine/core/error.h"
#include "engine/train/optim/adamw_8bit_optimizer.h"
#include "engine/train/optim/clip_grad_norm.h"
#include "engine/train/optim/optimizer_factory.h"
#include "engine/train/optim/prodigy_optimizer.h"
#include "tests/engine/train/optimizer_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <torch/torch.h>

#include <functional>
#include <iostream>

namespace tuneframe::train {
namespace {

using namespace test_support;

std::string optimizer_error(const std::function<void()>& action, core::ErrorCode* code = nullptr) {
    try {
        action();
    } catch (const core::Error& error) {
        if (code) {
            *code = error.code();
        }
        return std::string(error.what()) + " | " + error.hint();
    }
    return "(no error)";
}

NamedParameters small_parameters(at::ScalarType dtype = at::kFloat) {
    torch::manual_seed(11);
    return {{"block.weight", make_parameter(torch::randn({6, 5}), dtype)},
            {"block.bias", make_parameter(torch::randn({5}) * 0.1, dtype)}};
}

std::vector<std::vector<at::Tensor>> gradient_sequence(const NamedParameters& params, int steps,
                                                       std::uint64_t seed = 5) {
    torch::manual_seed(seed);
    std::vector<std::vector<at::Tensor>> sequence;
    for (int step = 0; step < steps; ++step) {
        std::vector<at::Tensor> gradients;
        for (const auto& entry : params) {
            gradients.push_back(torch::randn(entry.second.sizes()) * (0.5 + step % 3));
        }
        sequence.push_back(gradients);
    }
    return sequence;
}

void run(Optimizer& optimizer, const std::vector<std::vector<at::Tensor>>& sequence) {
    for (const auto& gradients : sequence) {
        set_gradients(optimizer.parameters(), gradients);
        optimizer.step();
    }
}

TEST(OptimizerFactory, BuildsEveryNamedOptimizer) {
    OptimizerOptions options;
    options.lr = 1e-4;
    for (const char* name :
         {"adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came"}) {
        auto optimizer = make_optimizer(name, small_parameters(), options);
        EXPECT_EQ(optimizer->name(), name);
        EXPECT_EQ(optimizer->lr(), 1e-4);
        EXPECT_EQ(optimizer->parameters().size(), 2u);
    }
    EXPECT_EQ(optimizer_names(), "adamw, adam, adamw8bit, adamw-cpu-offload, prodigy, came");
}

TEST(OptimizerFactory, ErrorsNameTheField) {
    core::ErrorCode code = core::ErrorCode::None;
    const std::string unknown =
        optimizer_error([] { make_optimizer("lion", small_parameters(), {}); }, &code);
    EXPECT_EQ(code, core::ErrorCode::Unsupported);
    EXPECT_NE(unknown.find("optimizer is \"lion\""), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("adamw-cpu-offload"), std::string::npos) << unknown;

    const auto field_error = [](const std::string& name, const OptimizerOptions& options) {
        core::ErrorCode code = core::ErrorCode::None;
        const std::string text =
            optimizer_error([&] { make_optimizer(name, small_parameters(), options); }, &code);
        EXPECT_EQ(code, core::ErrorCode::BadInput) << text;
        return text;
    };
    OptimizerOptions options;
    options.lr = -1;
    EXPECT_EQ(field_error("adamw", options).rfind("lr is -1", 0), 0u);
    options = {};
    options.beta2 = 1.0;
    EXPECT_EQ(field_error("adamw8bit", options).rfind("beta2 is 1", 0), 0u);
    options = {};
    options.beta1 = -0.1;
    EXPECT_EQ(field_error("prodigy", options).rfind("beta1", 0), 0u);
    options = {};
    options.epsilon = -1e-8;
    EXPECT_EQ(field_error("adam", options).rfind("epsilon", 0), 0u);
    options = {};
    options.weight_decay = -0.01;
    EXPECT_EQ(field_error("adamw-cpu-offload", options).rfind("weight_decay", 0), 0u);
    options = {};
    EXPECT_EQ(field_error("came", options).rfind("lr is not set", 0), 0u);
    options.lr = 1e-4;
    options.beta3 = 1.5;
    EXPECT_EQ(field_error("came", options).rfind("beta3", 0), 0u);
    options = {};
    options.min_8bit_size = -1;
    EXPECT_EQ(field_error("adamw8bit", options).rfind("min_8bit_size", 0), 0u);

    auto optimizer = make_optimizer("adamw", small_parameters(), {});
    EXPECT_EQ(optimizer_error([&] { optimizer->set_lr(std::nan("")); }).rfind("lr is nan", 0), 0u);
    EXPECT_NO_THROW(optimizer->set_lr(0));
}

TEST(OptimizerFactory, DefaultsAreTheReferenceLibraries) {
    // torch.optim.AdamW's weight decay default (1e-2) shows in the update of a zero gradient.
    const auto decay_after_one_step = [](const std::string& name) {
        NamedParameters params{{"w", make_parameter(torch::ones({4}))}};
        auto optimizer = make_optimizer(name, params, {});
        params[0].second.mutable_grad() = torch::zeros({4});
        optimizer->step();
        return 1.0 - params[0].second[0].item<double>();
    };
    // lr 1e-3 times decay 1e-2, to float32's resolution at 1 (6e-8).
    EXPECT_NEAR(decay_after_one_step("adamw"), 1e-3 * 1e-2, 1e-7);
    EXPECT_NEAR(decay_after_one_step("adamw8bit"), 1e-3 * 1e-2, 1e-7);
    EXPECT_NEAR(decay_after_one_step("adamw-cpu-offload"), 1e-3 * 1e-2, 1e-7);
    EXPECT_EQ(decay_after_one_step("adam"), 0.0);
}

TEST(OptimizerPrecision, Float16OnTheCpuIsAClearError) {
    core::ErrorCode code = core::ErrorCode::None;
    const std::string text = optimizer_error(
        [] {
            make_optimizer("adamw", {{"proj.weight", make_parameter(torch::ones({2}), at::kHalf)}},
                           {});
        },
        &code);
    EXPECT_EQ(code, core::ErrorCode::Unsupported);
    EXPECT_NE(text.find("proj.weight"), std::string::npos) << text;
    EXPECT_NE(text.find("CUDA"), std::string::npos) << text;
    EXPECT_NE(text.find("bf16"), std::string::npos) << text;

    const std::string integer = optimizer_error([] {
        make_optimizer("adamw", {{"steps", torch::zeros({2}, torch::kLong)}}, {});
    });
    EXPECT_NE(integer.find("steps"), std::string::npos) << integer;
    EXPECT_NE(
        optimizer_error([] { make_optimizer("adamw", {}, {}); }).find("no trainable parameters"),
        std::string::npos);
}

// Updates far below bf16's resolution: lr 1e-4 on weights of 1, where a bf16 step is 2^-7.
// With float32 masters they accumulate (Adam moves each weight by about lr per step); rounded
// straight into bf16 every step, they vanish.
TEST(OptimizerPrecision, Bf16MasterWeightsKeepSmallUpdates) {
    for (const char* name : {"adamw", "adamw8bit", "adamw-cpu-offload", "came"}) {
        for (bool masters : {true, false}) {
            NamedParameters params{{"w", make_parameter(torch::ones({16}), at::kBFloat16)}};
            OptimizerOptions options;
            options.lr = 1e-4;
            options.weight_decay = 0;
            options.fp32_master_weights = masters;
            auto optimizer = make_optimizer(name, params, options);
            for (int step = 0; step < 150; ++step) {
                params[0].second.mutable_grad() = torch::ones({16}, torch::kBFloat16);
                optimizer->step();
            }
            const double moved = 1.0 - params[0].second.to(torch::kFloat).min().item<double>();
            EXPECT_EQ(params[0].second.scalar_type(), at::kBFloat16);
            if (masters) {
                EXPECT_GT(moved, 2 * 0.0039) << name;
                const auto state = optimizer->state_tensors();
                const auto master = std::find_if(state.begin(), state.end(), [](const auto& e) {
                    return e.first == "w.master";
                });
                ASSERT_NE(master, state.end()) << name;
                EXPECT_EQ(master->second.scalar_type(), at::kFloat);
                EXPECT_TRUE(torch::equal(master->second.to(at::kBFloat16), params[0].second));
            } else {
                EXPECT_EQ(moved, 0.0) << name;
            }
        }
    }
}

TEST(OptimizerPrecision, Bf16StateIsFloat32AndMatchesFloat32Run) {
    // The same bf16 values in float32 parameters: masters make the bf16 run the float32 run.
    NamedParameters bf16 = small_parameters(at::kBFloat16);
    NamedParameters fp32;
    for (const auto& [name, tensor] : bf16) {
        fp32.emplace_back(name, make_parameter(tensor.to(at::kFloat)));
    }
    std::vector<std::vector<at::Tensor>> sequence = gradient_sequence(bf16, 4);
    for (auto& gradients : sequence) {
        for (at::Tensor& gradient : gradients) {
            gradient = gradient.to(at::kBFloat16).to(at::kFloat);
        }
    }
    auto bf16_optimizer = make_optimizer("adamw", bf16, {});
    auto fp32_optimizer = make_optimizer("adamw", fp32, {});
    run(*bf16_optimizer, sequence);
    run(*fp32_optimizer, sequence);
    for (std::size_t i = 0; i < bf16.size(); ++i) {
        EXPECT_TRUE(torch::equal(bf16[i].second, fp32[i].second.to(at::kBFloat16)));
    }
    for (const auto& [name, tensor] : bf16_optimizer->state_tensors()) {
        EXPECT_NE(tensor.scalar_type(), at::kBFloat16) << name;
    }
}

TEST(AdamW8bit, SmallTensorsAreExactlyAdamW) {
    NamedParameters eight = small_parameters();
    NamedParameters plain = clone_parameters(eight);
    const auto sequence = gradient_sequence(eight, 5);
    auto quantised = make_optimizer("adamw8bit", eight, {});
    auto reference = make_optimizer("adamw", plain, {});
    run(*quantised, sequence);
    run(*reference, sequence);
    for (std::size_t i = 0; i < eight.size(); ++i) {
        EXPECT_TRUE(bit_equal(eight[i].second, plain[i].second)) << eight[i].first;
    }
}

// A tensor above the threshold (5 * 1000 elements, 20 blocks with a short last one) over 20
// steps: the parameters stay within a fraction of one step size of AdamW's, while the state
// is 8-bit.
TEST(AdamW8bit, LargeTensorsFollowAdamWClosely) {
    torch::manual_seed(2);
    NamedParameters eight{{"w", make_parameter(torch::randn({5, 1000}))}};
    NamedParameters plain = clone_parameters(eight);
    const auto sequence = gradient_sequence(eight, 20);
    OptimizerOptions options;
    options.lr = 1e-3;
    auto quantised = make_optimizer("adamw8bit", eight, options);
    auto reference = make_optimizer("adamw", plain, options);
    run(*quantised, sequence);
    run(*reference, sequence);
    const double error = max_abs_difference(eight[0].second, plain[0].second);
    const double mean_error = (eight[0].second - plain[0].second).abs().mean().item<double>();
    std::cout << "[ 8-bit    ] 20 steps on 5000 elements: max error " << error / 1e-3
              << " lr, mean " << mean_error / 1e-3 << " lr\n";
    EXPECT_GT(error, 0.0);
    EXPECT_LT(error, 20 * 1e-3 * 0.25) << "max error in units of lr: " << error / 1e-3;
    EXPECT_LT(mean_error, 0.02 * 20 * 1e-3) << "mean error in units of lr: " << mean_error / 1e-3;
    const auto state = quantised->state_tensors();
    std::map<std::string, at::Tensor> by_name(state.begin(), state.end());
    EXPECT_EQ(by_name.at("w.exp_avg").scalar_type(), at::kByte);
    EXPECT_EQ(by_name.at("w.exp_avg_sq").scalar_type(), at::kByte);
    EXPECT_EQ(by_name.at("w.exp_avg_absmax").sizes(), (std::vector<std::int64_t>{20}));
    EXPECT_EQ(by_name.at("w.step").item<float>(), 20.0f);
}

TEST(AdamWCpuOffload, EqualsAdamWBitForBitOnTheCpu) {
    for (at::ScalarType dtype : {at::kFloat, at::kBFloat16}) {
        NamedParameters offloaded = small_parameters(dtype);
        NamedParameters plain = clone_parameters(offloaded);
        const auto sequence = gradient_sequence(offloaded, 6);
        OptimizerOptions options;
        options.lr = 3e-3;
        options.weight_decay = 0.05;
        auto cpu = make_optimizer("adamw-cpu-offload", offloaded, options);
        auto reference = make_optimizer("adamw", plain, options);
        run(*cpu, sequence);
        run(*reference, sequence);
        for (std::size_t i = 0; i < offloaded.size(); ++i) {
            EXPECT_TRUE(bit_equal(offloaded[i].second, plain[i].second)) << offloaded[i].first;
        }
        const auto a = cpu->state_tensors();
        const auto b = reference->state_tensors();
        ASSERT_EQ(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].first, b[i].first);
            EXPECT_TRUE(bit_equal(a[i].second, b[i].second)) << a[i].first;
        }
        const StateBytes bytes = cpu->state_bytes();
        EXPECT_EQ(bytes.device, 0);
        EXPECT_EQ(bytes.cpu, reference->state_bytes().cpu);
    }
}

TEST(AdamWCpuOffload, ParametersWithoutGradientsAreSkipped) {
    NamedParameters params = small_parameters();
    const at::Tensor bias_before = params[1].second.detach().clone();
    auto optimizer = make_optimizer("adamw-cpu-offload", params, {});
    params[0].second.mutable_grad() = torch::ones({6, 5});
    optimizer->step();
    EXPECT_TRUE(torch::equal(params[1].second, bias_before));
    for (const auto& entry : optimizer->state_tensors()) {
        EXPECT_EQ(entry.first.rfind("block.weight.", 0), 0u) << entry.first;
    }
}

TEST(Optimizer, ZeroGradAndSkippedParameters) {
    NamedParameters params = small_parameters();
    auto optimizer = make_optimizer("adamw", params, {});
    set_gradients(params, gradient_sequence(params, 1)[0]);
    optimizer->zero_grad(/*set_to_none=*/false);
    EXPECT_TRUE(torch::equal(params[0].second.grad(), torch::zeros({6, 5})));
    optimizer->zero_grad();
    EXPECT_FALSE(params[0].second.grad().defined());
    const at::Tensor before = params[0].second.detach().clone();
    optimizer->step();
    EXPECT_TRUE(torch::equal(params[0].second, before));
    EXPECT_EQ(optimizer->state_bytes().total(), 0) << "state is created at the first update";
}

TEST(Prodigy, ZeroLearningRateChangesNothingButCreatesState) {
    NamedParameters params = small_parameters();
    const at::Tensor before = params[0].second.detach().clone();
    auto optimizer = make_optimizer("prodigy", params, {});
    auto& prodigy = dynamic_cast<ProdigyOptimizer&>(*optimizer);
    optimizer->set_lr(0);
    set_gradients(params, gradient_sequence(params, 1)[0]);
    optimizer->step();
    EXPECT_TRUE(torch::equal(params[0].second, before));
    EXPECT_EQ(prodigy.statistics().k, 0);
    EXPECT_EQ(prodigy.statistics().d, 1e-6);
    EXPECT_GT(optimizer->state_bytes().total(), 0);
    optimizer->set_lr(1);
    optimizer->step();
    EXPECT_FALSE(torch::equal(params[0].second, before));
    EXPECT_EQ(prodigy.statistics().k, 1);
}

TEST(Prodigy, AllZeroParametersKeepAScalarP0) {
    // A fresh LoRA B is all zeros; prodigyopt saves its p0 as a 0-d zero.
    NamedParameters params{{"lora_B.weight", make_parameter(torch::zeros({4, 3}))},
                           {"lora_A.weight", make_parameter(torch::ones({3, 4}))}};
    auto optimizer = make_optimizer("prodigy", params, {});
    set_gradients(params, gradient_sequence(params, 1)[0]);
    optimizer->step();
    std::map<std::string, at::Tensor> state;
    for (const auto& entry : optimizer->state_tensors()) {
        state.insert(entry);
    }
    EXPECT_EQ(state.at("lora_B.weight.p0").dim(), 0);
    EXPECT_EQ(state.at("lora_A.weight.p0").sizes(), (std::vector<std::int64_t>{12}));
    EXPECT_EQ(state.at("lora_A.weight.s").sizes(), (std::vector<std::int64_t>{12}));
    EXPECT_EQ(state.at("d").scalar_type(), at::kDouble);
    EXPECT_EQ(state.at("k").item<std::int64_t>(), 1);
}

TEST(ClipGradNorm, ClipsOnlyAboveTheLimit) {
    NamedParameters params{{"a", make_parameter(torch::zeros({2}))},
                           {"b", make_parameter(torch::zeros({1}))},
                           {"unused", make_parameter(torch::zeros({3}))}};
    params[0].second.mutable_grad() = torch::tensor({3.0f, 0.0f});
    params[1].second.mutable_grad() = torch::tensor({4.0f});
    GradNorm norm = clip_grad_norm(params, 10.0);
    EXPECT_FLOAT_EQ(norm.value(), 5.0);
    EXPECT_TRUE(torch::equal(params[0].second.grad(), torch::tensor({3.0f, 0.0f})));
    norm = clip_grad_norm(params, 1.0);
    EXPECT_FLOAT_EQ(norm.value(), 5.0);
    EXPECT_NEAR(params[1].second.grad()[0].item<float>(), 0.8, 1e-6);
    EXPECT_NEAR(clip_grad_norm(params, 1.0).value(), 1.0, 1e-5);
    // A job's max_grad_norm 0 (no clipping) measures with an infinite limit.
    EXPECT_NEAR(clip_grad_norm(params, INFINITY).value(), 1.0, 1e-5);
    EXPECT_NEAR(params[1].second.grad()[0].item<float>(), 0.8, 1e-6);

    NamedParameters none{{"a", make_parameter(torch::zeros({2}))}};
    EXPECT_EQ(clip_grad_norm(none, 1.0).value(), 0.0);
    EXPECT_NE(optimizer_error([&] { clip_grad_norm(none, 0.0); }).find("max_grad_norm"),
              std::string::npos);
}

TEST(ClipGradNorm, Bf16GradientsAreMeasuredInFloat32) {
    NamedParameters params{{"a", make_parameter(torch::zeros({1000}), at::kBFloat16)}};
    params[0].second.mutable_grad() = torch::full({1000}, 0.1, torch::kBFloat16);
    const GradNorm norm = clip_grad_norm(params, 1.0);
    EXPECT_EQ(norm.tensor.scalar_type(), at::kFloat);
    // bf16(0.1) = 0.10009765625; sqrt(1000) * that, without bf16's rounding of the sum.
    EXPECT_NEAR(norm.value(), std::sqrt(1000.0) * 0.10009765625, 1e-5);
    EXPECT_EQ(params[0].second.grad().scalar_type(), at::kBFloat16);
    EXPECT_NEAR(params[0].second.grad().to(at::kFloat).norm().item<double>(), 1.0, 1e-2);
}

} // namespace
} // namespace tuneframe::train
