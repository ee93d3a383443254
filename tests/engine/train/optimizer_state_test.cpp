// Optimizer state as checkpoints see it: a safetensors round trip that continues bit for bit,
// loads that refuse state of the wrong shape, and the bytes each optimizer holds.
#include "engine/core/error.h"
#include "engine/core/tensor_io.h"
#include "engine/train/optim/adamw_8bit_optimizer.h"
#include "engine/train/optim/optimizer_factory.h"
#include "engine/train/optim/prodigy_optimizer.h"
#include "tests/engine/train/optimizer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <iostream>

namespace tuneframe::train {
namespace {

using namespace test_support;

// A weight large enough for 8-bit state (80 * 64 = 5120 elements, 20 blocks), a zero-initialised
// LoRA-B-like matrix (Prodigy's scalar p0) and a bias.
NamedParameters checkpoint_parameters(at::ScalarType dtype) {
    torch::manual_seed(21);
    return {{"blocks.0.proj.weight", make_parameter(torch::randn({80, 64}) * 0.05, dtype)},
            {"blocks.0.proj.lora_B.weight", make_parameter(torch::zeros({8, 4}), dtype)},
            {"blocks.0.proj.bias", make_parameter(torch::randn({64}) * 0.01, dtype)}};
}

std::vector<std::vector<at::Tensor>> gradients(const NamedParameters& params, int steps) {
    torch::manual_seed(8);
    std::vector<std::vector<at::Tensor>> sequence;
    for (int step = 0; step < steps; ++step) {
        std::vector<at::Tensor> step_gradients;
        for (const auto& entry : params) {
            step_gradients.push_back(torch::randn(entry.second.sizes()) * (step % 2 ? 0.3 : 2.0));
        }
        sequence.push_back(step_gradients);
    }
    return sequence;
}

OptimizerOptions options_for(const std::string& name) {
    OptimizerOptions options;
    options.lr = name == "prodigy" ? 1.0 : 1e-3;
    options.weight_decay = 0.01;
    return options;
}

std::map<std::string, at::Tensor> as_map(const core::NamedTensors& tensors) {
    return {tensors.begin(), tensors.end()};
}

struct RoundTripCase {
    std::string optimizer;
    at::ScalarType dtype;
};

class OptimizerCheckpoint : public ::testing::TestWithParam<RoundTripCase> {};

// Three steps, a checkpoint through safetensors files, three more steps in a fresh optimizer
// over the reloaded parameters: the same bits as six uninterrupted steps.
TEST_P(OptimizerCheckpoint, ContinuesBitIdentically) {
    const auto& [name, dtype] = GetParam();
    const NamedParameters params = checkpoint_parameters(dtype);
    const auto sequence = gradients(params, 6);
    auto optimizer = make_optimizer(name, params, options_for(name));
    for (int step = 0; step < 3; ++step) {
        set_gradients(params, sequence[step]);
        optimizer->step();
    }
    test::TemporaryDirectory folder;
    core::write_tensors(folder / "optimizer.safetensors", optimizer->state_tensors());
    core::write_tensors(folder / "model.safetensors", params);

    const auto saved_model = core::read_tensors(folder / "model.safetensors");
    NamedParameters resumed_params;
    for (const auto& [param_name, tensor] : params) {
        resumed_params.emplace_back(param_name, make_parameter(saved_model.at(param_name), dtype));
    }
    auto resumed = make_optimizer(name, resumed_params, options_for(name));
    resumed->load_state_tensors(core::read_tensors(folder / "optimizer.safetensors"));
    EXPECT_EQ(resumed->state_bytes().total(), optimizer->state_bytes().total());

    for (int step = 3; step < 6; ++step) {
        set_gradients(params, sequence[step]);
        optimizer->step();
        set_gradients(resumed_params, sequence[step]);
        resumed->step();
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
        EXPECT_TRUE(bit_equal(resumed_params[i].second, params[i].second)) << params[i].first;
    }
    const auto expected = as_map(optimizer->state_tensors());
    const auto actual = as_map(resumed->state_tensors());
    ASSERT_EQ(actual.size(), expected.size());
    for (const auto& [key, tensor] : expected) {
        ASSERT_TRUE(actual.count(key)) << key;
        EXPECT_TRUE(bit_equal(actual.at(key), tensor)) << key;
    }
    // The steps after the checkpoint must have changed the state, or this compared nothing.
    const auto before = core::read_tensors(folder / "optimizer.safetensors");
    const std::string changed = name == "prodigy" ? "d_numerator" : "blocks.0.proj.bias.exp_avg";
    EXPECT_FALSE(torch::equal(before.at(changed), expected.at(changed)));
}

std::string case_name(const ::testing::TestParamInfo<RoundTripCase>& info) {
    std::string name = info.param.optimizer + (info.param.dtype == at::kBFloat16 ? "_bf16" : "");
    for (char& c : name) {
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(EveryOptimizer, OptimizerCheckpoint,
                         ::testing::Values(RoundTripCase{"adamw", at::kFloat},
                                           RoundTripCase{"adam", at::kFloat},
                                           RoundTripCase{"adamw8bit", at::kFloat},
                                           RoundTripCase{"adamw-cpu-offload", at::kFloat},
                                           RoundTripCase{"prodigy", at::kFloat},
                                           RoundTripCase{"came", at::kFloat},
                                           RoundTripCase{"adamw", at::kBFloat16},
                                           RoundTripCase{"adamw8bit", at::kBFloat16},
                                           RoundTripCase{"adamw-cpu-offload", at::kBFloat16},
                                           RoundTripCase{"prodigy", at::kBFloat16},
                                           RoundTripCase{"came", at::kBFloat16}),
                         case_name);

class OptimizerStateLoad : public ::testing::Test {
protected:
    void SetUp() override {
        params_ = checkpoint_parameters(at::kFloat);
        optimizer_ = make_optimizer("prodigy", params_, {});
        set_gradients(params_, gradients(params_, 1)[0]);
        optimizer_->step();
        saved_ = as_map(optimizer_->state_tensors());
    }

    std::string load_error(const StateTensors& tensors) {
        const auto before = as_map(optimizer_->state_tensors());
        try {
            optimizer_->load_state_tensors(tensors);
        } catch (const core::Error& error) {
            EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
            const auto after = as_map(optimizer_->state_tensors());
            EXPECT_EQ(after.size(), before.size());
            for (const auto& [key, tensor] : before) {
                EXPECT_TRUE(after.count(key) && bit_equal(after.at(key), tensor))
                    << "a failed load changed " << key;
            }
            return error.what();
        }
        return "(no error)";
    }

    NamedParameters params_;
    std::unique_ptr<Optimizer> optimizer_;
    StateTensors saved_;
};

TEST_F(OptimizerStateLoad, ListsMissingUnexpectedAndMismatchedKeys) {
    StateTensors tensors = saved_;
    tensors.erase("blocks.0.proj.weight.exp_avg_sq");
    tensors.erase("d_max");
    tensors["blocks.0.proj.weight.momentum"] = torch::zeros({1});
    tensors["blocks.9.other.weight.exp_avg"] = torch::zeros({1});
    tensors["blocks.0.proj.bias.exp_avg"] = torch::zeros({63});
    tensors["blocks.0.proj.bias.step"] = torch::zeros({}, torch::kFloat);
    const std::string text = load_error(tensors);
    const std::size_t missing = text.find("missing ");
    const std::size_t unexpected = text.find("unexpected ");
    const std::size_t mismatched = text.find("mismatched ");
    ASSERT_TRUE(missing < unexpected && unexpected < mismatched) << text;
    const auto listed_between = [&](const char* name, std::size_t from, std::size_t to) {
        const std::size_t at = text.find(name, from);
        EXPECT_TRUE(at != std::string::npos && at < to) << name << " in: " << text;
    };
    listed_between("blocks.0.proj.weight.exp_avg_sq", missing, unexpected);
    listed_between("d_max", missing, unexpected);
    listed_between("blocks.0.proj.weight.momentum", unexpected, mismatched);
    listed_between("blocks.9.other.weight.exp_avg", unexpected, mismatched);
    listed_between("blocks.0.proj.bias.exp_avg (F32 [63], expected F32 [64])", mismatched,
                   text.size());
    listed_between("blocks.0.proj.bias.step (F32 [], expected I64 [])", mismatched, text.size());
}

TEST_F(OptimizerStateLoad, GroupStateMustBeScalars) {
    StateTensors tensors = saved_;
    tensors["d"] = torch::zeros({2}, torch::kFloat64);
    EXPECT_NE(load_error(tensors).find("\"d\""), std::string::npos);
}

TEST_F(OptimizerStateLoad, AParameterWithoutStateStartsFresh) {
    StateTensors tensors = saved_;
    for (auto it = tensors.begin(); it != tensors.end();) {
        it = it->first.rfind("blocks.0.proj.bias.", 0) == 0 ? tensors.erase(it) : std::next(it);
    }
    optimizer_->load_state_tensors(tensors);
    const auto state = as_map(optimizer_->state_tensors());
    EXPECT_EQ(state.count("blocks.0.proj.bias.exp_avg"), 0u);
    EXPECT_EQ(state.size(), tensors.size());
    // The LoRA B matrix is no longer zero, yet its saved 0-d p0 loaded above; a whole p0 loads
    // as well, and is kept as it is.
    StateTensors whole = saved_;
    whole["blocks.0.proj.lora_B.weight.p0"] = torch::ones({32});
    optimizer_->load_state_tensors(whole);
    EXPECT_EQ(as_map(optimizer_->state_tensors()).at("blocks.0.proj.lora_B.weight.p0").numel(), 32);
}

// Bytes per element of the 8-bit state for a tensor the size of a small attention projection.
TEST(OptimizerStateBytes, EightBitHoldsAboutTwoBytesPerParameter) {
    const std::int64_t rows = 512;
    const std::int64_t columns = 1000; // 512000 elements, 2000 blocks
    const auto measure = [&](const std::string& name) {
        torch::manual_seed(1);
        NamedParameters params{{"w", make_parameter(torch::randn({rows, columns}) * 0.02)}};
        auto optimizer = make_optimizer(name, params, {});
        params[0].second.mutable_grad() = torch::randn({rows, columns}) * 1e-3;
        optimizer->step();
        return optimizer->state_bytes();
    };
    const std::int64_t numel = rows * columns;
    const std::int64_t blocks = numel / AdamW8bitOptimizer::kBlockSize;
    const std::int64_t maps = 2 * 256 * 4;
    const StateBytes eight = measure("adamw8bit");
    EXPECT_EQ(eight.device, 0);
    EXPECT_EQ(eight.cpu, 2 * numel + 2 * 4 * blocks + 4 + maps);
    const StateBytes full = measure("adamw");
    EXPECT_EQ(full.cpu, 8 * numel + 4);
    std::cout << "[ bytes    ] adamw8bit " << static_cast<double>(eight.cpu) / numel
              << " bytes/param (" << eight.cpu << " for " << numel << "), adamw "
              << static_cast<double>(full.cpu) / numel << "\n";
    EXPECT_LT(static_cast<double>(eight.cpu) / numel, 2.05);
}

TEST(OptimizerStateBytes, MastersAndFactoredStateAreCounted) {
    NamedParameters bf16{{"w", make_parameter(torch::ones({10, 20}), at::kBFloat16)}};
    auto adamw = make_optimizer("adamw", bf16, {});
    bf16[0].second.mutable_grad() = torch::ones({10, 20}, torch::kBFloat16);
    adamw->step();
    EXPECT_EQ(adamw->state_bytes().cpu, 3 * 4 * 200 + 4) << "master, exp_avg, exp_avg_sq, step";

    NamedParameters fp32{{"w", make_parameter(torch::ones({10, 20}))}};
    OptimizerOptions options;
    options.lr = 1e-4;
    auto came = make_optimizer("came", fp32, options);
    fp32[0].second.mutable_grad() = torch::ones({10, 20});
    came->step();
    // exp_avg, 2 x (row 10 + column 20), RMS, step (int64)
    EXPECT_EQ(came->state_bytes().cpu, 4 * 200 + 4 * 2 * (10 + 20) + 4 + 8);
}

} // namespace
} // namespace tuneframe::train
