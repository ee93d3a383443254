// The training loop on the tiny pipeline with an in-memory dataset: it learns, it resumes to the
// same bits, it checkpoints atomically and keeps the newest, and it obeys the control socket.
#include "engine/core/event_emitter.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "engine/core/tensor_io.h"
#include "engine/diffusion/pipeline_folder.h"
#include "engine/lora/lora_injection.h"
#include "engine/models/cogvideox/transformer_checkpoint.h"
#include "engine/models/model_family.h"
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

// A LoRA run of the tiny Wan 2.2 A14B pipeline (two experts) on the in-memory dataset, whose
// moments and 32-wide prompts fit its 16-channel latents and text width.
common::TrainingJob two_expert_job(const std::string& expert) {
    common::TrainingJob job = small_job(6, 1e-2);
    job.model = test::tiny_wan_pipeline("wan2.2-tiny-a14b").string();
    job.flow_matching.expert = expert;
    return job;
}

TrainResult train_two_experts(const common::TrainingJob& job, const fs::path& run) {
    fs::create_directories(run);
    const int fd = ::open((run / "events.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    core::EventEmitter events(fd);
    Trainer trainer(job, job.model, run, std::make_unique<MemoryDataset>(), events);
    TrainResult result = trainer.run();
    ::close(fd);
    return result;
}

// Whether some adapter of `file` moved off its zero-initialised B: the expert trained.
bool adapter_trained(const fs::path& file) {
    for (const auto& [name, tensor] : core::read_tensors(file)) {
        const bool b =
            name.find("lora_B") != std::string::npos || name.find("lora_up") != std::string::npos;
        if (b && tensor.abs().max().item<double>() > 0) {
            return true;
        }
    }
    return false;
}

std::string tuneframe_expert(const fs::path& file) {
    const core::SafetensorsFile lora(file);
    return nlohmann::json::parse(lora.metadata().at("tuneframe")).value("expert", "");
}

// The same short video as `sample` makes it, from `folder` with `options`.
at::Tensor sampled_video(const models::ModelFolder& folder, const models::SamplerOptions& options) {
    models::SampleRequest request;
    request.prompt = "a red ball";
    request.frames = 5;
    request.height = 32;
    request.width = 32;
    request.steps = 4; // the first steps are the high-noise expert's, the last the low's
    request.seed = 3;
    return folder.sampler(options)->generate(request).video;
}

// Each expert the run trained goes to a file of its own, named for it, verified in a fresh base
// of that expert; sampling with the two files is sampling with the two merged experts.
TEST(RunExport, ATwoExpertRunWritesOneFilePerExpertAndSamplesWithBoth) {
    test::TemporaryDirectory dir;
    train_two_experts(two_expert_job("both"), dir / "run");
    ExportRequest request;
    request.run = dir / "run";
    request.format = "musubi";
    request.out = dir / "musubi";
    const ExportResult musubi = export_run(request);
    ASSERT_EQ(musubi.files.size(), 2u);
    EXPECT_EQ(musubi.files[0].path,
              dir / "musubi" / "tuneframe_lora_musubi_high_noise.safetensors");
    EXPECT_EQ(musubi.files[1].path, dir / "musubi" / "tuneframe_lora_musubi_low_noise.safetensors");
    EXPECT_EQ(musubi.path, musubi.files[0].path);
    for (const ExportedFile& file : musubi.files) {
        EXPECT_LE(file.max_abs_diff, file.tolerance) << file.path;
        EXPECT_EQ(tuneframe_expert(file.path), file.expert);
        EXPECT_TRUE(adapter_trained(file.path)) << file.path;
    }
    EXPECT_EQ(musubi.files[0].expert, "high_noise");
    EXPECT_EQ(musubi.files[1].expert, "low_noise");
    // Two experts of one shape, trained on different steps: their files differ.
    const auto high = core::read_tensors(musubi.files[0].path);
    const auto low = core::read_tensors(musubi.files[1].path);
    EXPECT_TRUE(std::any_of(high.begin(), high.end(), [&](const auto& item) {
        return !item.second.equal(low.at(item.first));
    }));

    request.format = "diffusers";
    request.out = dir / "pair.safetensors";
    const ExportResult diffusers = export_run(request);
    ASSERT_EQ(diffusers.files.size(), 2u);
    EXPECT_EQ(diffusers.files[0].path, dir / "pair_high_noise.safetensors");
    EXPECT_EQ(diffusers.files[1].path, dir / "pair_low_noise.safetensors");
    EXPECT_FALSE(fs::exists(dir / "pair.safetensors"));

    request.format = "merged";
    request.out = dir / "merged";
    const ExportResult merged = export_run(request);
    EXPECT_EQ(merged.path, dir / "merged");
    ASSERT_EQ(merged.files.size(), 2u);
    EXPECT_EQ(merged.files[1].path, dir / "merged" / "transformer_2");

    const std::unique_ptr<models::ModelFolder> base =
        models::open_model_folder(test::tiny_wan_pipeline("wan2.2-tiny-a14b"));
    models::SamplerOptions with_files;
    with_files.placement = {torch::kFloat32, torch::kCPU};
    with_files.lora = musubi.files[0].path;
    with_files.lora_2 = musubi.files[1].path;
    const at::Tensor from_files = sampled_video(*base, with_files);
    models::SamplerOptions plain;
    plain.placement = with_files.placement;
    const at::Tensor from_merged =
        sampled_video(*base->with_transformer(dir / "merged" / "transformer", 0)
                           ->with_transformer(dir / "merged" / "transformer_2", 1),
                      plain);
    EXPECT_LT((from_files - from_merged).abs().max().item<double>(), 1e-4);
    // Without the second file the low-noise expert is the base's: another video.
    with_files.lora_2.reset();
    EXPECT_GT((sampled_video(*base, with_files) - from_merged).abs().max().item<double>(), 1e-4);
}

// A run of one expert writes that expert's file only; --expert chooses among those trained and
// refuses the others; merged and pipeline exports hold both experts, the untrained one the
// base's own files.
// Whether `copy` is the base's file: linked to it, or the same bytes where no link can be made
// (across mounts, even of one file system: CI's LibTorch 2 check binds the repository into its
// root, so its models and temporary folders sit on different mounts).
bool is_base_file(const fs::path& copy, const fs::path& base) {
    return fs::equivalent(copy, base) || test::read_bytes(copy) == test::read_bytes(base);
}

TEST(RunExport, ARunOfOneExpertExportsThatExpertAndRefusesTheOther) {
    test::TemporaryDirectory dir;
    train_two_experts(two_expert_job("low_noise"), dir / "run");
    ExportRequest request;
    request.run = dir / "run";
    request.format = "wan";
    request.out = dir / "wan";
    const ExportResult wan = export_run(request);
    ASSERT_EQ(wan.files.size(), 1u);
    EXPECT_EQ(wan.files[0].path, dir / "wan" / "tuneframe_lora_wan_low_noise.safetensors");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "wan"), fs::directory_iterator()), 1);
    EXPECT_LE(wan.max_abs_diff, wan.tolerance);

    request.expert = "high_noise";
    request.out = dir / "high";
    try {
        export_run(request);
        FAIL() << "an expert the run did not train was exported";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(std::string(error.what()).find("low-noise expert only"), std::string::npos)
            << error.what();
        EXPECT_NE(error.hint().find("--expert low_noise"), std::string::npos) << error.hint();
    }
    EXPECT_FALSE(fs::exists(dir / "high"));
    request.expert = "both";
    EXPECT_THROW(export_run(request), core::Error);
    request.expert = "low_noise";
    EXPECT_EQ(export_run(request).files.size(), 1u);

    request.expert.clear();
    request.format = "merged";
    request.out = dir / "merged";
    const ExportResult merged = export_run(request);
    ASSERT_EQ(merged.files.size(), 1u);
    EXPECT_EQ(merged.files[0].path, dir / "merged" / "transformer_2");
    const fs::path base = test::tiny_wan_pipeline("wan2.2-tiny-a14b");
    EXPECT_TRUE(is_base_file(dir / "merged" / "transformer" / "diffusion_pytorch_model.safetensors",
                             base / "transformer" / "diffusion_pytorch_model.safetensors"));
    EXPECT_FALSE(
        is_base_file(dir / "merged" / "transformer_2" / "diffusion_pytorch_model.safetensors",
                     base / "transformer_2" / "diffusion_pytorch_model.safetensors"));
    // An earlier export of the pair is replaced; a folder of other files is not written into.
    EXPECT_EQ(export_run(request).path, dir / "merged");
    request.out = dir / "wan";
    EXPECT_THROW(export_run(request), core::Error);

    request.format = "pipeline";
    request.out = dir / "pipeline";
    const ExportResult pipeline = export_run(request);
    EXPECT_EQ(pipeline.files[0].path, dir / "pipeline" / "transformer_2");
    const std::unique_ptr<models::ModelFolder> opened = models::open_model_folder(pipeline.path);
    EXPECT_EQ(opened->experts(), 2);
    EXPECT_EQ(test::read_bytes(dir / "pipeline" / "transformer_2" / "config.json"),
              test::read_bytes(dir / "merged" / "transformer_2" / "config.json"));
    EXPECT_TRUE(is_base_file(dir / "pipeline" / "transformer" / "config.json",
                             base / "transformer" / "config.json"));
}

TEST(RunExport, AOneTransformerRunHasNoExpertToChoose) {
    test::TemporaryDirectory dir;
    train(dir / "run", 2);
    ExportRequest request;
    request.run = dir / "run";
    request.out = dir / "lora";
    request.expert = "high_noise";
    try {
        export_run(request);
        FAIL() << "--expert was taken for a one-transformer model";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::BadInput);
        EXPECT_NE(error.hint().find("Leave --expert out"), std::string::npos) << error.hint();
    }
    request.expert.clear();
    const ExportResult result = export_run(request);
    ASSERT_EQ(result.files.size(), 1u);
    EXPECT_EQ(result.files[0].path, result.path);
    EXPECT_EQ(result.files[0].expert, "");
}

} // namespace
} // namespace tuneframe::train
