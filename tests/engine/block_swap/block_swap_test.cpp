// Block swap behind the model seam (DiffusionTransformerImpl::swap_blocks), for both families on
// the CPU, where the "device" is the host and the weights are still copied into fresh tensors
// before each use and dropped after: the same losses, adapters and gradients as without it, bit
// for bit (LoRA over a float or an int8 base, a full fine-tune, inference); never more than the
// running block and the next one on the device; forward in order and backward in reverse, each
// swapped block recomputing; parking an expert's frozen weights on the host or the disk.
#include "engine/core/error.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/architectures.h"
#include "engine/models/cogvideox/cogvideox_transformer_3d.h"
#include "tests/engine/block_swap/residency_recorder.h"
#include "tests/engine/wan_transformer/tiny_wan.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <map>

namespace tuneframe::models {
namespace {

constexpr std::int64_t kBlocks = 6;
constexpr std::int64_t kSwapped = 4;

struct Subject {
    DiffusionTransformer model;
    TransformerInputs inputs;
};

Subject wan_subject() {
    wan::WanTransformer3DConfig config = test::tiny_wan_config();
    config.num_layers = kBlocks;
    Subject subject{test::seeded_wan_model(config).ptr(), test::seeded_wan_inputs(config)};
    return subject;
}

Subject cogvideox_subject() {
    cogvideox::CogVideoXTransformer3DConfig config =
        cogvideox::find_architecture("cogvideox-5b").transformer;
    config.num_layers = kBlocks;
    config.num_attention_heads = 2;
    config.attention_head_dim = 16;
    config.text_embed_dim = 24;
    config.time_embed_dim = 16;
    config.max_text_seq_length = 5;
    config.sample_height = 8;
    config.sample_width = 8;
    config.sample_frames = 9;
    torch::manual_seed(3);
    Subject subject{cogvideox::CogVideoXTransformer3DModel(config).ptr(), {}};
    subject.inputs.hidden_states = torch::randn({2, 2, config.in_channels, 8, 8});
    subject.inputs.encoder_hidden_states = torch::randn({2, 5, config.text_embed_dim});
    subject.inputs.timestep = torch::tensor({10, 500}, torch::kInt64);
    return subject;
}

enum class Training { Lora, LoraInt8, Full };

// A model of `family` ready to train as a job would hold it: quantized, adapted, frozen, every
// block checkpointed (swapped blocks recompute regardless; the comparison is with a model that
// recomputes the same blocks).
Subject prepared(const std::string& family, Training training) {
    Subject subject = family == "wan" ? wan_subject() : cogvideox_subject();
    DiffusionTransformerImpl& model = *subject.model;
    if (training == Training::LoraInt8) {
        model.quantize_base(lora::BaseQuantization::Int8);
    }
    if (training == Training::Full) {
        for (auto& parameter : model.parameters()) {
            parameter.set_requires_grad(true);
        }
    } else {
        torch::manual_seed(9);
        lora::LoRAConfig adapters;
        adapters.rank = 2;
        adapters.alpha = 2;
        adapters.target_modules = {"to_q", "to_k", "to_v", "to_out.0"};
        lora::inject_lora(model, adapters);
        lora::freeze_all_but_lora(model);
    }
    model.set_gradient_checkpointing(true);
    model.train();
    return subject;
}

struct Trace {
    std::vector<double> losses;
    std::map<std::string, at::Tensor> trainable;
    std::map<std::string, at::Tensor> gradients; // of the last step
};

// `steps` of plain SGD on a fixed loss, as the trainer's loop would run them.
Trace train(Subject& subject, int steps) {
    DiffusionTransformerImpl& model = *subject.model;
    Trace trace;
    for (int step = 0; step < steps; ++step) {
        const at::Tensor output = model.forward(subject.inputs);
        const at::Tensor loss = (output.to(torch::kFloat) - 0.25).square().mean();
        trace.losses.push_back(loss.item<double>());
        loss.backward();
        model.finish_gradients();
        torch::NoGradGuard no_grad;
        for (const auto& item : model.named_parameters()) {
            at::Tensor parameter = item.value();
            if (!parameter.requires_grad()) {
                continue;
            }
            EXPECT_TRUE(parameter.grad().defined()) << item.key();
            EXPECT_EQ(parameter.grad().device(), parameter.device()) << item.key();
            trace.gradients[item.key()] = parameter.grad().clone();
            parameter.sub_(parameter.grad() * 0.05);
            parameter.mutable_grad() = at::Tensor();
        }
    }
    for (const auto& item : model.named_parameters()) {
        if (item.value().requires_grad()) {
            trace.trainable[item.key()] = item.value().detach().clone();
        }
    }
    return trace;
}

void expect_same(const std::map<std::string, at::Tensor>& a,
                 const std::map<std::string, at::Tensor>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [name, tensor] : a) {
        ASSERT_TRUE(b.count(name)) << name;
        EXPECT_TRUE(torch::equal(tensor, b.at(name))) << name;
    }
}

// Watches one weight of every swapped block: its data while the block runs and once it is back.
class PointerRecorder : public test::ResidencyRecorder {
public:
    explicit PointerRecorder(std::map<std::int64_t, at::Tensor> probes)
        : probes_(std::move(probes)) {
        for (const auto& [block, tensor] : probes_) {
            home_[block] = tensor.data_ptr();
        }
    }

    void record(const ResidencyEvent& event) override {
        test::ResidencyRecorder::record(event);
        const auto probe = probes_.find(event.block);
        if (probe == probes_.end()) {
            return;
        }
        const void* now = probe->second.data_ptr();
        if (event.kind == ResidencyEventKind::BlockUsed) {
            away_from_home += now != home_.at(event.block) ? 1 : 0;
            ++uses;
        } else if (event.kind == ResidencyEventKind::BlockDropped) {
            back_home += now == home_.at(event.block) ? 1 : 0;
            ++drops;
        }
    }

    int uses = 0;
    int drops = 0;
    int away_from_home = 0;
    int back_home = 0;

private:
    std::map<std::int64_t, at::Tensor> probes_;
    std::map<std::int64_t, const void*> home_;
};

std::map<std::int64_t, at::Tensor> first_weights_of_swapped(DiffusionTransformerImpl& model,
                                                            const std::string& prefix) {
    std::map<std::int64_t, at::Tensor> probes;
    const auto parameters = model.named_parameters();
    for (std::int64_t block = kBlocks - kSwapped; block < kBlocks; ++block) {
        probes[block] = parameters[prefix + std::to_string(block) + ".attn1.to_q.weight"];
    }
    return probes;
}

class BlockSwap : public ::testing::TestWithParam<std::string> {
protected:
    std::string family() const { return GetParam(); }
    std::string block_prefix() const {
        return family() == "wan" ? "blocks." : "transformer_blocks.";
    }

    // The same training with and without the last kSwapped blocks swapped.
    void expect_training_unchanged(Training training) {
        Subject plain = prepared(family(), training);
        const Trace expected = train(plain, 3);

        Subject swapped = prepared(family(), training);
        auto recorder = std::make_shared<PointerRecorder>(
            first_weights_of_swapped(*swapped.model, block_prefix()));
        swapped.model->swap_blocks(kSwapped, c10::kCPU);
        swapped.model->set_residency_observer(recorder, "transformer");
        EXPECT_EQ(swapped.model->swapped_blocks(), kSwapped);
        const Trace got = train(swapped, 3);

        EXPECT_EQ(got.losses, expected.losses);
        expect_same(got.trainable, expected.trainable);
        expect_same(got.gradients, expected.gradients);

        // The running block and the next one, never more; each swapped block in forward order,
        // then recomputed in backward's reverse order.
        EXPECT_EQ(recorder->most_resident(), 2);
        std::vector<std::int64_t> forward;
        std::vector<std::int64_t> backward;
        for (int step = 0; step < 3; ++step) {
            forward.insert(forward.end(), {2, 3, 4, 5});
            backward.insert(backward.end(), {5, 4, 3, 2});
        }
        EXPECT_EQ(recorder->used(SwapPass::Forward), forward);
        EXPECT_EQ(recorder->used(SwapPass::Backward), backward);
        EXPECT_EQ(recorder->count(ResidencyEventKind::BlockFetched),
                  recorder->count(ResidencyEventKind::BlockDropped));
        // Every use ran on fresh copies, and every drop gave the host's tensors back.
        EXPECT_EQ(recorder->uses, 3 * 2 * kSwapped);
        EXPECT_EQ(recorder->away_from_home, recorder->uses);
        EXPECT_EQ(recorder->back_home, recorder->drops);
    }
};

TEST_P(BlockSwap, LoraTrainingIsBitIdentical) {
    expect_training_unchanged(Training::Lora);
}

TEST_P(BlockSwap, LoraOverAnInt8BaseIsBitIdentical) {
    expect_training_unchanged(Training::LoraInt8);
}

// A full fine-tune's swapped weights get their gradients on the host, as the optimizer there
// reads them, equal to the ones autograd accumulates without swapping.
TEST_P(BlockSwap, FullFineTuneIsBitIdenticalWithGradientsOnTheHost) {
    expect_training_unchanged(Training::Full);
}

TEST_P(BlockSwap, InferenceMatchesAndDropsEveryBlockAfterUse) {
    Subject plain = prepared(family(), Training::Lora);
    plain.model->eval();
    Subject swapped = prepared(family(), Training::Lora);
    swapped.model->eval();
    auto recorder = std::make_shared<test::ResidencyRecorder>();
    swapped.model->swap_blocks(kSwapped, c10::kCPU);
    swapped.model->set_residency_observer(recorder, "transformer");
    torch::NoGradGuard no_grad;
    EXPECT_TRUE(
        torch::equal(swapped.model->forward(swapped.inputs), plain.model->forward(plain.inputs)));
    EXPECT_EQ(recorder->used(SwapPass::Forward), (std::vector<std::int64_t>{2, 3, 4, 5}));
    EXPECT_TRUE(recorder->used(SwapPass::Backward).empty());
    EXPECT_EQ(recorder->most_resident(), 2);
    EXPECT_EQ(recorder->count(ResidencyEventKind::BlockDropped),
              static_cast<std::size_t>(kSwapped));
}

// A pipeline stage swaps the last blocks of its own range.
TEST_P(BlockSwap, AStageSwapsTheLastBlocksOfItsRange) {
    Subject swapped = prepared(family(), Training::Lora);
    auto recorder = std::make_shared<test::ResidencyRecorder>();
    swapped.model->swap_blocks(2, c10::kCPU, 0, 3);
    swapped.model->set_residency_observer(recorder, "transformer");
    torch::NoGradGuard no_grad;
    swapped.model->eval();
    swapped.model->forward(swapped.inputs);
    EXPECT_EQ(recorder->used(SwapPass::Forward), (std::vector<std::int64_t>{1, 2}));
}

TEST_P(BlockSwap, MoreBlocksThanTheModelHasIsRefusedNamingTheField) {
    Subject subject = prepared(family(), Training::Lora);
    try {
        subject.model->swap_blocks(kBlocks + 1, c10::kCPU);
        FAIL() << "expected a refusal";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_EQ(error.field(), "memory.blocks_to_swap");
        EXPECT_NE(std::string(error.what()).find("6 blocks"), std::string::npos) << error.what();
    }
    EXPECT_EQ(subject.model->swapped_blocks(), 0);
}

// An expert waiting its turn parks its frozen weights on the host or drops them, keeps its
// adapters, and computes as before once back (the dropped ones read again).
TEST_P(BlockSwap, ParkingMovesTheFrozenWeightsAndChangesNoNumber) {
    Subject subject = prepared(family(), Training::Lora);
    subject.model->swap_blocks(2, c10::kCPU);
    auto recorder = std::make_shared<test::ResidencyRecorder>();
    subject.model->set_residency_observer(recorder, "transformer_2");
    subject.model->eval();
    torch::NoGradGuard no_grad;
    const at::Tensor expected = subject.model->forward(subject.inputs);
    core::NamedTensors base;
    for (const auto& item : subject.model->named_parameters()) {
        if (!item.value().requires_grad()) {
            base.emplace_back(item.key(), item.value().clone());
        }
    }
    for (const auto& item : subject.model->named_buffers()) {
        base.emplace_back(item.key(), item.value().clone());
    }
    const at::Tensor adapter =
        subject.model->named_parameters()[block_prefix() + "0.attn1.to_q.lora_A.weight"];
    const void* adapter_data = adapter.data_ptr();

    subject.model->park(Parking::Host, c10::kCPU);
    EXPECT_EQ(subject.model->parking(), Parking::Host);
    EXPECT_EQ(adapter.data_ptr(), adapter_data);
    subject.model->unpark(c10::kCPU, [] {
        ADD_FAILURE() << "nothing was dropped";
        return core::NamedTensors{};
    });
    EXPECT_TRUE(torch::equal(subject.model->forward(subject.inputs), expected));

    subject.model->park(Parking::Disk, c10::kCPU);
    for (const auto& item : subject.model->named_parameters()) {
        EXPECT_EQ(item.value().numel() == 0, !item.value().requires_grad()) << item.key();
    }
    int reloads = 0;
    subject.model->unpark(c10::kCPU, [&] {
        ++reloads;
        return base;
    });
    EXPECT_EQ(reloads, 1);
    EXPECT_EQ(adapter.data_ptr(), adapter_data);
    EXPECT_TRUE(torch::equal(subject.model->forward(subject.inputs), expected));

    std::vector<std::string> kinds;
    for (const ResidencyEvent& event : recorder->events()) {
        if (event.kind == ResidencyEventKind::Parked) {
            kinds.push_back(event.model + " parked on the " + event.where);
        } else if (event.kind == ResidencyEventKind::Unparked) {
            kinds.push_back(event.model + " back");
        }
    }
    EXPECT_EQ(kinds,
              (std::vector<std::string>{"transformer_2 parked on the host", "transformer_2 back",
                                        "transformer_2 parked on the disk", "transformer_2 back"}));
}

INSTANTIATE_TEST_SUITE_P(Families, BlockSwap, ::testing::Values("wan", "cogvideox"),
                         [](const auto& info) { return info.param; });

} // namespace
} // namespace tuneframe::models
