// The training loop on the tiny pipeline with an in-memory dataset: it learns, it resumes to the
// same bits, it checkpoints atomically and keeps the newest, and it obeys the control socket.
#include "engine/core/event_emitter.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/train/run_export.h"
#include "engine/train/sampling/bucket_batch_sampler.h"
#include "engine/train/trainer.h"
#include "engine/train/training_checkpoint.h"
#include "tests/engine/trainer/trainer_test_support.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

using test_support::fixed_batch_loss;
using test_support::MemoryDataset;
using test_support::read_events;
using test_support::small_job;

TrainResult train(const fs::path& run, std::int64_t steps, CommandChannel* commands = nullptr,
                  double lr = 1e-3) {
    return test_support::run_trainer(small_job(steps, lr), run, commands);
}

TEST(BucketBatchSampler, BatchesHoldOneBucketAndEverySampleOncePerEpoch) {
    const BucketBatchSampler sampler({"a", "b", "a", "a", "b"}, 2, 3);
    EXPECT_EQ(sampler.batches_per_epoch(), 3);
    for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
        const auto batches = sampler.epoch(epoch);
        std::vector<std::int64_t> seen;
        for (const auto& batch : batches) {
            for (std::int64_t index : batch) {
                EXPECT_EQ((index == 1 || index == 4), (batch.front() == 1 || batch.front() == 4));
                seen.push_back(index);
            }
        }
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(seen, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
        EXPECT_EQ(batches, sampler.epoch(epoch)); // a pure function of (seed, epoch)
    }
    EXPECT_NE(sampler.epoch(0), sampler.epoch(1));
}

TEST(Trainer, ResumingFromACheckpointEndsWithTheSameAdapterBits) {
    test::TemporaryDirectory dir;
    const TrainResult straight = train(dir / "straight", 5);
    EXPECT_EQ(straight.status, "finished");
    EXPECT_EQ(straight.steps, 5);

    train(dir / "resumed", 3);
    const TrainResult resumed = train(dir / "resumed", 5);
    EXPECT_EQ(resumed.steps, 5);

    const auto a = core::read_tensors(straight.last_checkpoint / "trainable.safetensors");
    const auto b = core::read_tensors(resumed.last_checkpoint / "trainable.safetensors");
    ASSERT_EQ(a.size(), 16u); // 2 blocks x q, k, v, out x A, B
    for (const auto& [name, tensor] : a) {
        EXPECT_TRUE(tensor.equal(b.at(name))) << name;
    }
    // keep = 2: the newest two of steps 2, 4 and 5 remain.
    const CheckpointStore store(dir / "straight");
    std::vector<std::int64_t> steps;
    for (const auto& folder : store.list()) {
        steps.push_back(CheckpointStore::step_of(folder));
    }
    EXPECT_EQ(steps, (std::vector<std::int64_t>{5, 4}));

    const auto events = read_events(dir / "resumed" / "events.jsonl");
    int step_events = 0;
    bool resumed_log = false;
    for (const auto& event : events) {
        if (event["type"] == "step") {
            ++step_events;
            EXPECT_TRUE(std::isfinite(event["loss"].get<double>()));
            EXPECT_GT(event["mem"][0]["peak"].get<std::int64_t>(), 0);
            // One process holds every adapter gradient once: 16 tensors of 4 x 32 floats.
            EXPECT_EQ(event["mem"][0]["gradients"].get<std::int64_t>(), 16 * 4 * 32 * 4);
        }
        resumed_log |=
            event["type"] == "log" && event["message"].get<std::string>().find("Resumed from") == 0;
    }
    EXPECT_EQ(step_events, 5); // 3, then 2 more
    EXPECT_TRUE(resumed_log);
}

// A ZeRO checkpoint's shards come with an index, so a rank of any later world size opens only
// the shards that hold its parameters' state.
TEST(CheckpointStore, ARankReadsOnlyTheShardsHoldingItsState) {
    test::TemporaryDirectory dir;
    CheckpointStore store(dir / "run");
    const fs::path staging = dir / "staging";
    fs::create_directories(staging);
    core::write_tensors(
        staging / "optimizer-rank-0-of-2.safetensors",
        {{"a.weight.exp_avg", torch::ones({2})}, {"a.weight.exp_avg_sq", torch::ones({2}) * 2}});
    core::write_tensors(staging / "optimizer-rank-1-of-2.safetensors",
                        {{"b.weight.exp_avg", torch::ones({3}) * 3}});
    CheckpointContents contents;
    contents.state.step = 3;
    contents.trainable = {{"a.weight", torch::zeros({2})}, {"b.weight", torch::zeros({3})}};
    contents.optimizer_shards = {staging / "optimizer-rank-0-of-2.safetensors",
                                 staging / "optimizer-rank-1-of-2.safetensors"};
    contents.job = nlohmann::json::object();
    const fs::path folder = store.save(contents);
    EXPECT_TRUE(fs::exists(folder / "optimizer.index.json"));

    const LoadedCheckpoint mine =
        store.load(folder, [](const std::string& key) { return key.rfind("b.weight.", 0) == 0; });
    ASSERT_EQ(mine.optimizer.size(), 1u);
    EXPECT_TRUE(mine.optimizer.at("b.weight.exp_avg").equal(torch::ones({3}) * 3));
    ASSERT_EQ(mine.optimizer_files_read.size(), 1u);
    EXPECT_EQ(mine.optimizer_files_read.front().filename(), "optimizer-rank-1-of-2.safetensors");

    const LoadedCheckpoint all = store.load(folder);
    EXPECT_EQ(all.optimizer.size(), 3u);
    EXPECT_EQ(all.optimizer_files_read.size(), 2u);
}

TEST(Trainer, TrainingLowersTheLossOnAFixedBatch) {
    test::TemporaryDirectory dir;
    const TrainResult result = train(dir / "run", 60, nullptr, 1e-2);
    const auto pipeline = diffusion::PipelineFolder::open(test::tiny_pipeline());
    auto transformer = models::cogvideox::load_cogvideox_transformer(pipeline.transformer);
    lora::LoRAConfig config;
    config.rank = 4;
    config.alpha = 4;
    lora::inject_lora(*transformer, config);
    const double before = fixed_batch_loss(transformer);
    const auto trained = core::read_tensors(result.last_checkpoint / "trainable.safetensors");
    {
        torch::NoGradGuard no_grad;
        for (auto& item : transformer->named_parameters()) {
            if (auto it = trained.find(item.key()); it != trained.end()) {
                item.value().copy_(it->second);
            }
        }
    }
    const double after = fixed_batch_loss(transformer);
    EXPECT_LT(after, before * 0.9) << "before " << before << ", after " << after;
}

// A sample whose latents are NaN: the step that draws it must stop the run, naming the step and
// the batch, although the loss is read back only once the optimizer step is queued.
class DatasetWithANanSample : public MemoryDataset {
public:
    TrainingExample load(std::int64_t index) const override {
        TrainingExample example = MemoryDataset::load(index);
        if (index == 3) {
            example.latent_mean = torch::full_like(example.latent_mean, NAN);
        }
        return example;
    }
};

TEST(Trainer, ANonFiniteLossStopsTheRunNamingTheStepAndBatch) {
    test::TemporaryDirectory dir;
    const fs::path run = dir / "run";
    fs::create_directories(run);
    const int fd = ::open((run / "events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    core::EventEmitter events(fd);
    Trainer trainer(small_job(4, 1e-3), test::tiny_pipeline(), run,
                    std::make_unique<DatasetWithANanSample>(), events, nullptr);
    try {
        trainer.run();
        FAIL() << "expected the run to stop on the NaN loss";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Nan);
        const std::string message = error.what();
        EXPECT_NE(message.find("The loss became "), std::string::npos) << message;
        EXPECT_NE(message.find("nan at step "), std::string::npos) << message; // or -nan
        EXPECT_NE(message.find("(batch of [2, "), std::string::npos) << message;
    }
    ::close(fd);
    // Every sample is drawn within the first two steps, before the first checkpoint (step 2)
    // could hold weights that saw it.
    EXPECT_FALSE(fs::exists(run / "checkpoints" / "step-2"));
}

TEST(Trainer, ValidationReportsTheMemoryOfEachStageForAllPromptsAtOnce) {
    test::TemporaryDirectory dir;
    const fs::path run = dir / "run";
    fs::create_directories(run);
    nlohmann::json json = small_job(2, 1e-3).to_json();
    json["validation"] = {{"every_steps", 2}, {"prompts", {"a red ball", "a blue square"}},
                          {"steps", 2},       {"frames", 9},
                          {"height", 32},     {"width", 48}};
    test_support::run_trainer(common::TrainingJob::from_json(json, "test job"), run);
    std::vector<std::string> phases;
    std::vector<std::string> videos;
    for (const nlohmann::json& event : read_events(run / "events.jsonl")) {
        if (event.value("type", "") == "memory") {
            phases.push_back(event["phase"]);
        } else if (event.value("type", "") == "validation") {
            videos.push_back(event["video"]);
        }
    }
    // One stage each for T5, the transformer and the VAE, whatever the number of prompts.
    const std::vector<std::string> validation = {"before_validation", "validation_text",
                                                 "validation_denoise", "validation_decode",
                                                 "after_validation"};
    const auto at = std::search(phases.begin(), phases.end(), validation.begin(), validation.end());
    EXPECT_NE(at, phases.end()) << nlohmann::json(phases).dump();
    ASSERT_EQ(videos.size(), 2u);
    for (const std::string& video : videos) {
        EXPECT_GT(fs::file_size(video), 0u) << video;
    }
}

// diffusers' scripts validate once more when training ends; a sweep's short runs are compared
// on that last picture, not on whichever multiple of every_steps came before it.
TEST(Trainer, ARunEndingBetweenValidationsValidatesItsLastStep) {
    test::TemporaryDirectory dir;
    const fs::path run = dir / "run";
    fs::create_directories(run);
    nlohmann::json json = small_job(3, 1e-3).to_json();
    json["validation"] = {{"every_steps", 2}, {"prompts", {"a red ball"}},
                          {"steps", 2},       {"frames", 9},
                          {"height", 32},     {"width", 48}};
    test_support::run_trainer(common::TrainingJob::from_json(json, "test job"), run);
    std::vector<std::int64_t> steps;
    for (const nlohmann::json& event : read_events(run / "events.jsonl")) {
        if (event.value("type", "") == "validation") {
            steps.push_back(event["step"]);
        }
    }
    EXPECT_EQ(steps, (std::vector<std::int64_t>{2, 3}));
}

TEST(Trainer, AStopOnTheControlSocketCheckpointsAndEnds) {
    test::TemporaryDirectory dir;
    const fs::path run = dir / "run";
    fs::create_directories(run);
    std::vector<std::string> warnings;
    CommandChannel channel(run / "control.sock",
                           [&](const std::string& warning) { warnings.push_back(warning); });
    const int client = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, (run / "control.sock").c_str(), sizeof address.sun_path - 1);
    ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    const std::string lines = "not json\n{\"v\":1,\"cmd\":\"stop\"}\n";
    ASSERT_EQ(::write(client, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
    ::close(client);
    // The channel reads on its own threads; give them a moment before training polls.
    for (int i = 0; i < 200 && warnings.empty(); ++i) {
        ::usleep(10000);
    }
    const TrainResult result = train(run, 50, &channel);
    EXPECT_EQ(result.status, "stopped");
    EXPECT_LT(result.steps, 50);
    EXPECT_EQ(CheckpointStore::step_of(result.last_checkpoint), result.steps);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find("not json"), std::string::npos);
}

TEST(Trainer, EveryOptimizerTrainsInBf16) {
    for (const char* name :
         {"adamw", "adam", "adamw8bit", "adamw-cpu-offload", "prodigy", "came"}) {
        test::TemporaryDirectory dir;
        nlohmann::json json = small_job(3, 1e-3).to_json();
        json["precision"] = "bf16";
        json["optimizer"]["name"] = name;
        json["optimizer"]["beta3"] = 0.9999;
        json["lr_schedule"] = {
            {"name", "cosine_with_restarts"}, {"warmup_steps", 1}, {"cycles", 2}};
        const int fd = ::open((dir / "events.jsonl").c_str(), O_WRONLY | O_CREAT, 0644);
        core::EventEmitter events(fd);
        Trainer trainer(common::TrainingJob::from_json(json, "job"), test::tiny_pipeline(),
                        dir.path(), std::make_unique<MemoryDataset>(), events);
        const TrainResult result = trainer.run();
        ::close(fd);
        EXPECT_EQ(result.steps, 3) << name;
        EXPECT_TRUE(std::isfinite(result.last_loss)) << name;
        std::vector<double> lrs;
        for (const auto& event : read_events(dir / "events.jsonl")) {
            if (event["type"] == "step") {
                lrs.push_back(event["lr"].get<double>());
            }
        }
        ASSERT_EQ(lrs.size(), 3u) << name;
        EXPECT_EQ(lrs[0], 0.0) << name; // the first warmup step runs at lr 0, as diffusers'
        EXPECT_GT(lrs[1], 0.0) << name;
    }
}

TEST(RunExport, EveryFormatIsWrittenReloadedAndVerified) {
    test::TemporaryDirectory dir;
    const TrainResult result = train(dir / "run", 4);
    ExportRequest request;
    request.run = dir / "run";

    request.format = "diffusers";
    request.out = dir / "diffusers";
    const ExportResult diffusers = export_run(request);
    EXPECT_EQ(diffusers.path, dir / "diffusers" / "pytorch_lora_weights.safetensors");
    EXPECT_EQ(diffusers.step, 4);
    EXPECT_LE(diffusers.max_abs_diff, diffusers.tolerance);
    const core::SafetensorsFile peft(diffusers.path);
    EXPECT_NE(peft.find("transformer.transformer_blocks.0.attn1.to_q.lora_A.weight"), nullptr);
    const auto config = nlohmann::json::parse(peft.metadata().at("lora_config"));
    EXPECT_EQ(config["r"], 4);
    const auto tuneframe = nlohmann::json::parse(peft.metadata().at("tuneframe"));
    EXPECT_EQ(tuneframe["step"], 4);

    request.format = "comfyui";
    request.out = dir / "comfy.safetensors";
    const ExportResult comfy = export_run(request);
    EXPECT_LE(comfy.max_abs_diff, comfy.tolerance);
    const core::SafetensorsFile kohya(comfy.path);
    EXPECT_NE(kohya.find("lora_unet_transformer_blocks_1_attn1_to_out_0.lora_up.weight"), nullptr);
    EXPECT_NE(kohya.find("lora_unet_transformer_blocks_1_attn1_to_out_0.alpha"), nullptr);

    request.format = "merged";
    request.out = dir / "merged";
    request.step = 2;
    const ExportResult merged = export_run(request);
    EXPECT_EQ(merged.step, 2);
    EXPECT_LE(merged.max_abs_diff, merged.tolerance);
    EXPECT_TRUE(fs::exists(dir / "merged" / "config.json"));

    request.step = 3; // keep = 2 left steps 4 and 2
    try {
        export_run(request);
        FAIL() << "no error";
    } catch (const core::Error& error) {
        EXPECT_NE(error.hint().find("4, 2"), std::string::npos) << error.hint();
    }
    (void)result;
}

// A merged transformer is a folder of its own: it is never written among other files, and an
// export over an earlier one replaces it whole (its stale shards go), staged beside the
// destination until verified.
TEST(RunExport, AMergedExportNeverWritesAmongOtherFilesAndReplacesAnEarlierOne) {
    test::TemporaryDirectory dir;
    train(dir / "run", 2);
    ExportRequest request;
    request.run = dir / "run";
    request.format = "merged";

    const fs::path shared = dir / "my-models";
    fs::create_directories(shared);
    test::write_bytes(shared / "notes.txt", "mine");
    request.out = shared;
    try {
        export_run(request);
        FAIL() << "the export wrote among the folder's other files";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("notes.txt"), std::string::npos) << error.what();
    }
    EXPECT_EQ(std::distance(fs::directory_iterator(shared), fs::directory_iterator()), 1);

    request.out = dir / "merged";
    ASSERT_LE(export_run(request).max_abs_diff, 1.0);
    // What a larger, sharded earlier export would have left.
    test::write_bytes(dir / "merged" / "diffusion_pytorch_model-00001-of-00002.safetensors",
                      "stale");
    const ExportResult again = export_run(request);
    EXPECT_EQ(again.path, dir / "merged");
    EXPECT_LE(again.max_abs_diff, again.tolerance);
    EXPECT_FALSE(fs::exists(dir / "merged" / "diffusion_pytorch_model-00001-of-00002.safetensors"));
    EXPECT_TRUE(fs::exists(dir / "merged" / "config.json"));
    for (const fs::directory_entry& entry : fs::directory_iterator(dir.path())) {
        EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path();
    }
}

// A base model laid out as the Hugging Face cache lays one out: each file of the snapshot a
// relative link into the cache's blobs. Returns the snapshot.
fs::path hub_cache_copy(const fs::path& model, const fs::path& cache) {
    const fs::path snapshot = cache / "snapshots" / "0123abcd";
    int blob = 0;
    for (const fs::directory_entry& entry : fs::recursive_directory_iterator(model)) {
        const fs::path relative = fs::relative(entry.path(), model);
        if (entry.is_directory()) {
            fs::create_directories(snapshot / relative);
            continue;
        }
        const fs::path target = cache / "blobs" / std::to_string(blob++);
        fs::create_directories(target.parent_path());
        fs::copy_file(entry.path(), target);
        fs::create_directories((snapshot / relative).parent_path());
        fs::create_symlink(fs::relative(target, (snapshot / relative).parent_path()),
                           snapshot / relative);
    }
    return snapshot;
}

// A whole pipeline: the merged transformer and the base model's other parts, which open as a
// pipeline, load in its place and share the base's files (the cache's blobs, not its links).
TEST(RunExport, APipelineExportIsTheBaseModelWithTheTrainedTransformer) {
    test::TemporaryDirectory dir;
    const fs::path base = hub_cache_copy(test::tiny_pipeline(), dir / "hub");
    common::TrainingJob job = small_job(2, 1e-3);
    job.model = base.string();
    test_support::run_trainer(job, dir / "run");
    ExportRequest request;
    request.run = dir / "run";
    request.format = "merged";
    request.out = dir / "merged";
    export_run(request);
    request.format = "pipeline";
    request.out = dir / "pipeline";
    const ExportResult exported = export_run(request);
    EXPECT_EQ(exported.path, dir / "pipeline");
    EXPECT_LE(exported.max_abs_diff, exported.tolerance);

    const diffusion::PipelineFolder pipeline = diffusion::PipelineFolder::open(exported.path);
    EXPECT_EQ(pipeline.transformer, dir / "pipeline" / "transformer");
    EXPECT_EQ(test::read_bytes(dir / "pipeline" / "transformer" / "config.json"),
              test::read_bytes(dir / "merged" / "config.json"));
    const auto merged = models::cogvideox::load_cogvideox_transformer(dir / "merged");
    const auto inside = models::cogvideox::load_cogvideox_transformer(pipeline.transformer);
    const auto expected = merged->named_parameters();
    for (const auto& item : inside->named_parameters()) {
        EXPECT_TRUE(item.value().equal(expected[item.key()])) << item.key();
    }
    for (const char* file : {"vae/config.json", "scheduler/scheduler_config.json",
                             "tokenizer/spiece.model", "text_encoder/config.json"}) {
        const fs::path copy = dir / "pipeline" / file;
        EXPECT_FALSE(fs::is_symlink(copy)) << file;
        EXPECT_TRUE(fs::equivalent(copy, fs::canonical(base / file))) << file << " is no link";
    }
    // Nothing but the pipeline is in it, so another export may replace it.
    EXPECT_EQ(export_run(request).path, dir / "pipeline");
    request.out = dir / "run"; // a folder of other files
    EXPECT_THROW(export_run(request), core::Error);
}
} // namespace
} // namespace tuneframe::train
