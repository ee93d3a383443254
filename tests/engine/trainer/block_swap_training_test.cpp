// memory.* through the trainer on the tiny Wan pipelines, on the CPU: a run with its blocks
// swapped gives the losses and trained tensors of the same run without, bit for bit (LoRA over a
// float or an int8 base, a full fine-tune with adamw-cpu-offload, each over two micro-batches a
// step), with at most the running block and the next one on the device; the two experts of Wan
// 2.2 A14B train each on its own noise window while the other is parked on the host or the disk,
// to the same numbers either way. Blocks whose saved inputs wait on the host between forward and
// backward (memory.offload_activations) train to the same bits too.
#include "engine/core/event_emitter.h"
#include "engine/core/tensor_io.h"
#include "engine/models/model_family.h"
#include "engine/train/trainer.h"
#include "tests/engine/block_swap/residency_recorder.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <set>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;
using models::ResidencyEvent;
using models::ResidencyEventKind;

// Four prepared samples of 9 x 32 x 48 clips as the tiny Wan VAE makes them, one bucket.
class WanMemoryDataset : public TrainingDataset {
public:
    WanMemoryDataset() {
        torch::manual_seed(21);
        for (int i = 0; i < 4; ++i) {
            TrainingExample example;
            example.latent_mean = torch::randn({16, 3, 4, 6}) * 0.5;
            example.latent_logvar = torch::full({16, 3, 4, 6}, -6.0);
            example.prompt_embeds = torch::randn({16, 32});
            examples_.push_back(example);
        }
    }
    std::int64_t size() const override { return static_cast<std::int64_t>(examples_.size()); }
    std::string bucket(std::int64_t) const override { return "9x32x48"; }
    TrainingExample load(std::int64_t index) const override {
        return examples_[static_cast<std::size_t>(index)];
    }
    std::string fingerprint() const override { return "wan-memory-4"; }

private:
    std::vector<TrainingExample> examples_;
};

common::TrainingJob wan_job(const std::string& arch, const nlohmann::json& edits) {
    nlohmann::json json = {
        {"model", test::tiny_wan_pipeline(arch).string()},
        {"precision", "fp32"},
        {"device", "cpu"},
        {"max_steps", 3},
        {"batch_size", 1},
        {"gradient_accumulation", 2},
        {"gradient_checkpointing", true},
        {"dataset", {{"frame_buckets", {9}}, {"resolution_buckets", {{32, 48}}}}},
        {"lora", {{"rank", 4}, {"alpha", 4}}},
        {"optimizer", {{"lr", 1e-2}}},
        {"checkpoints", {{"every_steps", 0}, {"keep", 1}}},
        {"seed", 7}};
    return common::TrainingJob::from_json(common::merge_job_json(json, edits), "wan job");
}

struct Outcome {
    std::vector<double> losses;
    core::NamedTensors trained;
};

Outcome run_wan(const std::string& arch, const nlohmann::json& edits, const fs::path& run,
                std::shared_ptr<models::ResidencyObserver> observer = nullptr) {
    fs::create_directories(run);
    const int fd = ::open((run / "events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    Outcome outcome;
    {
        core::EventEmitter events(fd);
        Trainer trainer(wan_job(arch, edits), test::tiny_wan_pipeline(arch), run,
                        std::make_unique<WanMemoryDataset>(), events, nullptr, nullptr,
                        std::move(observer));
        const TrainResult result = trainer.run();
        EXPECT_EQ(result.status, "finished");
        for (const auto& [name, tensor] :
             core::read_tensors(result.last_checkpoint / "trainable.safetensors")) {
            outcome.trained.emplace_back(name, tensor);
        }
    }
    ::close(fd);
    for (const nlohmann::json& event : test_support::read_events(run / "events.jsonl")) {
        if (event["type"] == "step") {
            outcome.losses.push_back(event["loss"].get<double>());
        }
    }
    return outcome;
}

void expect_same(const Outcome& got, const Outcome& expected) {
    ASSERT_EQ(got.losses.size(), 3u);
    EXPECT_EQ(got.losses, expected.losses);
    ASSERT_EQ(got.trained.size(), expected.trained.size());
    ASSERT_FALSE(got.trained.empty());
    for (std::size_t i = 0; i < got.trained.size(); ++i) {
        EXPECT_EQ(got.trained[i].first, expected.trained[i].first);
        EXPECT_TRUE(torch::equal(got.trained[i].second, expected.trained[i].second))
            << got.trained[i].first;
    }
}

struct SwapCase {
    std::string name;
    nlohmann::json edits;
};

class BlockSwapTraining : public ::testing::TestWithParam<SwapCase> {};

TEST_P(BlockSwapTraining, MatchesTheRunWithoutSwappingBitForBit) {
    test::TemporaryDirectory dir;
    const Outcome plain = run_wan("wan2.1-tiny", GetParam().edits, dir / "plain");
    for (const std::int64_t swapped : {1, 2}) {
        SCOPED_TRACE("blocks_to_swap " + std::to_string(swapped));
        nlohmann::json edits = GetParam().edits;
        edits["memory"] = {{"blocks_to_swap", swapped}};
        auto recorder = std::make_shared<test::ResidencyRecorder>();
        const Outcome swapped_run =
            run_wan("wan2.1-tiny", edits, dir / ("swapped-" + std::to_string(swapped)), recorder);
        expect_same(swapped_run, plain);
        // 3 steps of 2 micro-batches, each through every swapped block forward and back.
        const std::size_t passes = 3 * 2 * static_cast<std::size_t>(swapped);
        EXPECT_EQ(recorder->used(models::SwapPass::Forward).size(), passes);
        EXPECT_EQ(recorder->used(models::SwapPass::Backward).size(), passes);
        EXPECT_LE(recorder->most_resident(), 2);
        EXPECT_EQ(recorder->count(ResidencyEventKind::BlockFetched),
                  recorder->count(ResidencyEventKind::BlockDropped));
    }
}

INSTANTIATE_TEST_SUITE_P(
    Trainings, BlockSwapTraining,
    ::testing::Values(SwapCase{"lora", nlohmann::json::object()},
                      SwapCase{"lora_int8", {{"lora", {{"base_quantization", "int8"}}}}},
                      SwapCase{"full",
                               {{"mode", "full"},
                                {"optimizer", {{"name", "adamw-cpu-offload"}, {"lr", 1e-4}}}}}),
    [](const auto& info) { return info.param.name; });

class ActivationOffloadTraining : public ::testing::TestWithParam<SwapCase> {};

// Each recomputed block's input waits on the host from its forward to its recomputation and
// comes back one block ahead (so two are on the device at once, never more), with and without
// swapped blocks, to the bits of the run that keeps them on the device.
TEST_P(ActivationOffloadTraining, MatchesTheRunThatKeepsThemBitForBit) {
    test::TemporaryDirectory dir;
    const Outcome plain = run_wan("wan2.1-tiny", GetParam().edits, dir / "plain");
    const std::int64_t blocks =
        models::open_model_folder(test::tiny_wan_pipeline("wan2.1-tiny"))->num_blocks();
    ASSERT_GE(blocks, 2);
    for (const std::int64_t swapped : {0, 1}) {
        SCOPED_TRACE("blocks_to_swap " + std::to_string(swapped));
        nlohmann::json edits = GetParam().edits;
        edits["memory"] = {{"offload_activations", true}, {"blocks_to_swap", swapped}};
        auto recorder = std::make_shared<test::ResidencyRecorder>();
        const Outcome offloaded =
            run_wan("wan2.1-tiny", edits, dir / ("offloaded-" + std::to_string(swapped)), recorder);
        expect_same(offloaded, plain);
        // 3 steps of 2 micro-batches, each through every block.
        const auto inputs = static_cast<std::size_t>(3 * 2 * blocks);
        EXPECT_EQ(recorder->count(ResidencyEventKind::ActivationStashed), inputs);
        EXPECT_EQ(recorder->count(ResidencyEventKind::ActivationUsed), inputs);
        EXPECT_EQ(recorder->count(ResidencyEventKind::ActivationFetched), inputs);
        EXPECT_EQ(recorder->count(ResidencyEventKind::ActivationDropped), inputs);
        EXPECT_EQ(recorder->most_resident("", ResidencyEventKind::ActivationFetched,
                                          ResidencyEventKind::ActivationDropped),
                  2);
    }
}

INSTANTIATE_TEST_SUITE_P(
    Trainings, ActivationOffloadTraining,
    ::testing::Values(SwapCase{"lora", nlohmann::json::object()},
                      SwapCase{"full",
                               {{"mode", "full"},
                                {"optimizer", {{"name", "adamw-cpu-offload"}, {"lr", 1e-4}}}}}),
    [](const auto& info) { return info.param.name; });

// What the recorder saw of the two experts: which trained each micro-batch, at what timesteps,
// and whether the other was parked then.
struct ExpertLog {
    std::map<std::string, std::vector<double>> timesteps; // by expert
    int trained_beside_an_unparked_expert = 0;
    int came_home_beside_an_unparked_expert = 0;
    std::map<std::string, std::set<std::string>> parked_where;
};

ExpertLog expert_log(const test::ResidencyRecorder& recorder) {
    ExpertLog log;
    std::map<std::string, bool> parked = {{"transformer", false}, {"transformer_2", false}};
    const auto other = [](const std::string& expert) {
        return expert == "transformer" ? std::string("transformer_2") : std::string("transformer");
    };
    for (const ResidencyEvent& event : recorder.events()) {
        if (event.kind == ResidencyEventKind::Parked) {
            parked[event.model] = true;
            log.parked_where[event.model].insert(event.where);
        } else if (event.kind == ResidencyEventKind::Unparked) {
            parked[event.model] = false;
            log.came_home_beside_an_unparked_expert += parked[other(event.model)] ? 0 : 1;
        } else if (event.kind == ResidencyEventKind::Trains) {
            log.trained_beside_an_unparked_expert +=
                parked[event.model] || !parked[other(event.model)] ? 1 : 0;
            for (std::int64_t i = 0; i < event.timesteps.numel(); ++i) {
                log.timesteps[event.model].push_back(event.timesteps[i].item<double>());
            }
        }
    }
    return log;
}

TEST(ExpertParking, EachExpertTrainsOnItsWindowWhileTheOtherWaitsOnTheHostOrTheDisk) {
    test::TemporaryDirectory dir;
    Outcome outcomes[2];
    const char* places[] = {"host", "disk"};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(places[i]);
        auto recorder = std::make_shared<test::ResidencyRecorder>();
        // Six micro-batches, so both noise windows come up.
        const nlohmann::json edits = {{"max_steps", 3},
                                      {"gradient_accumulation", 2},
                                      {"memory", {{"inactive_expert", places[i]}}}};
        outcomes[i] = run_wan("wan2.2-tiny-a14b", edits, dir / places[i], recorder);
        const ExpertLog log = expert_log(*recorder);
        ASSERT_EQ(log.timesteps.size(), 2u) << "one expert never trained";
        // High noise (transformer) at timesteps from the boundary (0.875 x 1000) up, low noise
        // below it.
        for (const double t : log.timesteps.at("transformer")) {
            EXPECT_GE(t, 875.0);
        }
        for (const double t : log.timesteps.at("transformer_2")) {
            EXPECT_LT(t, 875.0);
        }
        EXPECT_EQ(log.timesteps.at("transformer").size() + log.timesteps.at("transformer_2").size(),
                  6u);
        EXPECT_EQ(log.trained_beside_an_unparked_expert, 0);
        EXPECT_EQ(log.came_home_beside_an_unparked_expert, 0);
        EXPECT_EQ(log.parked_where.at("transformer_2"), (std::set<std::string>{places[i]}));
    }
    // Parking moves weights, never changes them.
    expect_same(outcomes[1], outcomes[0]);
    std::set<bool> second;
    for (const auto& [name, tensor] : outcomes[0].trained) {
        second.insert(name.rfind("transformer_2.", 0) == 0);
    }
    EXPECT_EQ(second, (std::set<bool>{false, true}));
}

// Both experts with their blocks swapped too, and a validation pass that samples with the pair.
TEST(ExpertParking, SwappedExpertsValidateAndTrainAsUnswappedOnes) {
    test::TemporaryDirectory dir;
    const nlohmann::json validation = {{"every_steps", 3}, {"prompts", {"tfdemo a red ball"}},
                                       {"frames", 9},      {"height", 32},
                                       {"width", 48},      {"steps", 2},
                                       {"sampler", ""}};
    const nlohmann::json plain_edits = {{"validation", validation}};
    nlohmann::json swapped_edits = plain_edits;
    swapped_edits["memory"] = {{"blocks_to_swap", 1}, {"inactive_expert", "disk"}};
    const Outcome plain = run_wan("wan2.2-tiny-a14b", plain_edits, dir / "plain");
    auto recorder = std::make_shared<test::ResidencyRecorder>();
    const Outcome swapped = run_wan("wan2.2-tiny-a14b", swapped_edits, dir / "swapped", recorder);
    expect_same(swapped, plain);
    EXPECT_LE(recorder->most_resident("transformer"), 2);
    EXPECT_LE(recorder->most_resident("transformer_2"), 2);
    const ExpertLog log = expert_log(*recorder);
    EXPECT_EQ(log.came_home_beside_an_unparked_expert, 0);
    EXPECT_EQ(log.trained_beside_an_unparked_expert, 0);
    // Dropped between turns; whichever waited at the validation was read back onto the host
    // for it.
    std::set<std::string> places;
    for (const auto& [expert, where] : log.parked_where) {
        places.insert(where.begin(), where.end());
    }
    EXPECT_EQ(places, (std::set<std::string>{"disk", "host"}));
    EXPECT_TRUE(fs::exists(dir / "swapped" / "validation" / "step-3"));
}

} // namespace
} // namespace tuneframe::train
