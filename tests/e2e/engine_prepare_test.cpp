// `tuneframe-engine prepare` as the studio runs it: clips written here (two sizes, a damaged
// file, one too short, one missing) become cache entries of the expected shapes and a
// prepared.jsonl; a second run reuses every entry without rewriting one; a run killed midway
// resumes to the same result; image-to-video adds first-frame latents; a cache that cannot be
// written and a model without a VAE are error events.
#include "common/dataset_manifest.h"
#include "common/protocol.h"
#include "common/training_job.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "media/log_level.h"
#include "media/video_writer.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <poll.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<protocol::ParsedMessage> events_of(const std::string& out) {
    std::vector<protocol::ParsedMessage> events;
    std::istringstream stream(out);
    for (std::string line; std::getline(stream, line);) {
        std::string error;
        if (auto event = protocol::parse_line(line, "type", &error)) {
            events.push_back(*event);
        } else {
            ADD_FAILURE() << error << ": " << line;
        }
    }
    return events;
}

std::vector<json> jsonl(const fs::path& file) {
    std::vector<json> lines;
    std::istringstream stream(test::read_bytes(file));
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(json::parse(line));
    }
    return lines;
}

void write_clip(const fs::path& path, int width, int height, int frames) {
    media::WriterOptions options;
    options.gop_size = 4;
    media::VideoWriter writer(path.string(), width, height, options);
    std::vector<std::uint8_t> rgb(static_cast<std::size_t>(width) * height * 3);
    for (int f = 0; f < frames; ++f) {
        for (std::size_t i = 0; i < rgb.size(); ++i) {
            rgb[i] = static_cast<std::uint8_t>((i * 7 + static_cast<std::size_t>(f) * 29) % 251);
        }
        writer.write(rgb.data());
    }
    writer.finish();
}

// Every file under `folder` with its modification time.
std::map<std::string, fs::file_time_type> files_under(const fs::path& folder) {
    std::map<std::string, fs::file_time_type> files;
    for (const auto& entry : fs::recursive_directory_iterator(folder)) {
        if (entry.is_regular_file()) {
            files[fs::relative(entry.path(), folder).string()] = entry.last_write_time();
        }
    }
    return files;
}

// The project the studio would export: clips, a manifest, and one run folder per job.
class EnginePrepare : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        media::set_log_level();
        project_ = new test::TemporaryDirectory;
        const fs::path clips = *project_ / "clips";
        fs::create_directories(clips);
        write_clip(clips / "a.mp4", 64, 48, 12);
        write_clip(clips / "b.mp4", 40, 64, 20);
        write_clip(clips / "c.mp4", 64, 48, 9);
        write_clip(clips / "d.mp4", 40, 64, 16);
        write_clip(clips / "e.mp4", 64, 48, 10);
        write_clip(clips / "short.mp4", 64, 48, 5);
        test::write_bytes(clips / "broken.mp4", std::string(3000, '\x42'));

        std::vector<common::ManifestEntry> entries;
        const auto add = [&](const char* path, const char* caption, std::int64_t trim_in = 0,
                             std::optional<std::int64_t> trim_out = std::nullopt) {
            common::ManifestEntry entry;
            entry.path = std::string("clips/") + path;
            entry.caption = caption;
            entry.trim_in = trim_in;
            entry.trim_out = trim_out;
            entries.push_back(entry);
        };
        add("a.mp4", "a gull glides over the harbour");
        add("broken.mp4", "nothing to see");
        add("b.mp4", "a heron stands in the reeds", 2, 20);
        add("short.mp4", "too brief");
        add("c.mp4", "a gull glides over the harbour");
        add("missing.mp4", "gone");
        add("d.mp4", "tfx a kite over the dunes");
        add("e.mp4", "waves on the pier");
        std::string error;
        ASSERT_TRUE(common::write_manifest(*project_ / "data.jsonl", entries, &error)) << error;
    }

    static void TearDownTestSuite() {
        delete project_;
        project_ = nullptr;
    }

    // runs/<name>/job.json for the tiny pipeline; `edit` adjusts the job's JSON.
    static fs::path write_job(const std::string& name,
                              const std::function<void(json&)>& edit = {}) {
        common::TrainingJob job;
        job.model = test::tiny_pipeline().string();
        job.dataset.manifest = "../../data.jsonl";
        job.dataset.resolution_buckets = {{32, 48}, {48, 32}};
        job.dataset.frame_buckets = {9};
        job.precision = "fp32";
        job.device = "cpu";
        job.trigger_word = "tfx";
        json text = job.to_json();
        if (edit) {
            edit(text);
        }
        const fs::path run = *project_ / "runs" / name;
        fs::create_directories(run);
        core::write_json_file(run / "job.json", text);
        return run / "job.json";
    }

    static test::ProcessResult prepare(const fs::path& job) {
        return test::run_process({test::engine_path(), "prepare", "--job", job.string()}, 120);
    }

    static json summary_of(const std::vector<protocol::ParsedMessage>& events) {
        EXPECT_FALSE(events.empty());
        if (events.empty() || events.back().kind != "done") {
            return json::object();
        }
        EXPECT_EQ(events.back().body["status"], "ok");
        return events.back().body["summary"];
    }

    static std::int64_t latent_channels() {
        return core::read_json_file(test::tiny_pipeline() / "vae" / "config.json")
            .at("latent_channels")
            .get<std::int64_t>();
    }

    static test::TemporaryDirectory* project_;
};

test::TemporaryDirectory* EnginePrepare::project_ = nullptr;

TEST_F(EnginePrepare, EncodesReusesAndSkipsBadClips) {
    const fs::path job = write_job("t2v");
    const test::ProcessResult first = prepare(job);
    ASSERT_EQ(first.exit_code, 0) << first.err << first.out;

    const auto events = events_of(first.out);
    ASSERT_GE(events.size(), 4u);
    EXPECT_EQ(events.front().kind, "hello");
    EXPECT_EQ(events[1].kind, "phase");
    EXPECT_EQ(events[1].body["phase"], "prepare");
    std::vector<std::int64_t> clips_done;
    std::vector<std::string> warnings;
    for (const auto& event : events) {
        if (event.kind == "progress" && event.body["unit"] == "clip") {
            EXPECT_EQ(event.body["total"], 8);
            clips_done.push_back(event.body["done"].get<std::int64_t>());
        }
        if (event.kind == "log" && event.body["level"] == "warning") {
            warnings.push_back(event.body["message"].get<std::string>());
        }
    }
    EXPECT_EQ(clips_done, (std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_NE(warnings[0].find("broken.mp4"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[1].find("short.mp4"), std::string::npos) << warnings[1];
    EXPECT_NE(warnings[1].find("too_short"), std::string::npos) << warnings[1];
    EXPECT_NE(warnings[2].find("missing.mp4"), std::string::npos) << warnings[2];
    EXPECT_NE(warnings[2].find("not_found"), std::string::npos) << warnings[2];

    const json summary = summary_of(events);
    EXPECT_EQ(summary["prepared"], 5);
    EXPECT_EQ(summary["reused"], 0);
    EXPECT_EQ(summary["skipped"], 3);
    EXPECT_EQ(summary["latents_encoded"], 5);
    EXPECT_EQ(summary["captions_encoded"], 4) << "a and c share a caption";
    EXPECT_TRUE(summary["seconds"].is_number());

    const fs::path run = job.parent_path();
    const fs::path cache = (*project_ / "cache").lexically_normal();
    EXPECT_TRUE(fs::is_regular_file(run / "events.jsonl"));
    const std::vector<json> index = jsonl(run / "prepared.jsonl");
    ASSERT_EQ(index.size(), 9u);
    EXPECT_EQ(index[0]["kind"], "dataset");
    EXPECT_EQ(index[0]["v"], 1);
    EXPECT_EQ(fs::path(index[0]["cache_dir"].get<std::string>()), cache);
    std::map<std::string, std::string> skipped;
    std::map<std::string, json> samples;
    for (const json& line : index) {
        const std::string name = fs::path(line.value("path", "")).filename().string();
        if (line["kind"] == "skipped") {
            skipped[name] = line["reason"];
            EXPECT_FALSE(line["message"].get<std::string>().empty());
        } else if (line["kind"] == "sample") {
            samples[name] = line;
        }
    }
    EXPECT_EQ(skipped.size(), 3u);
    EXPECT_EQ(skipped["short.mp4"], "too_short");
    EXPECT_EQ(skipped["missing.mp4"], "not_found");
    EXPECT_EQ(skipped.count("broken.mp4"), 1u);
    ASSERT_EQ(samples.size(), 5u);
    EXPECT_EQ(samples["a.mp4"]["caption"], "tfx a gull glides over the harbour");
    EXPECT_EQ(samples["d.mp4"]["caption"], "tfx a kite over the dunes");
    EXPECT_EQ(samples["a.mp4"]["prompt"], samples["c.mp4"]["prompt"]);
    EXPECT_EQ(samples["a.mp4"]["bucket"], "9x32x48");
    EXPECT_EQ(samples["b.mp4"]["bucket"], "9x48x32");
    EXPECT_EQ(samples["a.mp4"]["line"], 1);
    EXPECT_EQ(samples["b.mp4"]["line"], 3);
    EXPECT_FALSE(samples["a.mp4"].contains("image_latent"));

    const std::int64_t channels = latent_channels();
    for (const auto& [name, sample] : samples) {
        const core::SafetensorsFile latent(cache / sample["latent"].get<std::string>());
        const std::int64_t h = sample["height"].get<std::int64_t>() / 8;
        const std::int64_t w = sample["width"].get<std::int64_t>() / 8;
        EXPECT_EQ(latent.at("mean").shape, (std::vector<std::int64_t>{channels, 3, h, w})) << name;
        EXPECT_EQ(latent.at("logvar").shape, latent.at("mean").shape) << name;
        EXPECT_EQ(latent.at("mean").dtype, core::DType::F32);
        EXPECT_EQ(latent.metadata().at("source"), sample["path"].get<std::string>());
        const core::SafetensorsFile prompt(cache / sample["prompt"].get<std::string>());
        EXPECT_EQ(prompt.at("prompt_embeds").shape, (std::vector<std::int64_t>{64, 32})) << name;
        EXPECT_EQ(prompt.metadata().at("caption"), sample["caption"].get<std::string>());
    }

    // Again: everything comes from the cache and no entry is written.
    const auto before = files_under(cache);
    const test::ProcessResult second = prepare(job);
    ASSERT_EQ(second.exit_code, 0) << second.err;
    const json again = summary_of(events_of(second.out));
    EXPECT_EQ(again["prepared"], 0);
    EXPECT_EQ(again["reused"], summary["prepared"]);
    EXPECT_EQ(again["latents_encoded"], 0);
    EXPECT_EQ(again["captions_encoded"], 0);
    EXPECT_EQ(files_under(cache), before);
    EXPECT_EQ(jsonl(run / "prepared.jsonl"), index);
}

// Starts prepare, reads its events until the first clip is done, and kills it there.
bool prepare_and_kill_after_first_clip(const fs::path& job) {
    int pipe_fds[2];
    if (::pipe(pipe_fds) != 0) {
        return false;
    }
    const std::string engine = test::engine_path();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(pipe_fds[1], STDOUT_FILENO);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDERR_FILENO);
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        const std::string job_text = job.string();
        const char* argv[] = {engine.c_str(), "prepare", "--job", job_text.c_str(), nullptr};
        ::execv(engine.c_str(), const_cast<char* const*>(argv));
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    std::string buffer;
    bool killed = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!killed && std::chrono::steady_clock::now() < deadline) {
        pollfd fd{pipe_fds[0], POLLIN, 0};
        if (::poll(&fd, 1, 1000) <= 0) {
            continue;
        }
        char chunk[4096];
        const ssize_t got = ::read(pipe_fds[0], chunk, sizeof chunk);
        if (got <= 0) {
            break;
        }
        buffer.append(chunk, static_cast<std::size_t>(got));
        for (std::size_t end; (end = buffer.find('\n')) != std::string::npos;) {
            const json event = json::parse(buffer.substr(0, end), nullptr, false);
            buffer.erase(0, end + 1);
            if (event.value("type", "") == "progress" && event.value("unit", "") == "clip" &&
                event.value("done", 0) >= 1) {
                ::kill(pid, SIGKILL);
                killed = true;
                break;
            }
        }
    }
    if (!killed) {
        ::kill(pid, SIGKILL);
    }
    ::close(pipe_fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return killed;
}

TEST_F(EnginePrepare, AKilledRunResumesToTheSameResult) {
    const fs::path reference_job =
        write_job("reference", [](json& job) { job["dataset"]["cache_dir"] = "cache"; });
    ASSERT_EQ(prepare(reference_job).exit_code, 0);

    const fs::path job =
        write_job("killed", [](json& job) { job["dataset"]["cache_dir"] = "cache"; });
    ASSERT_TRUE(prepare_and_kill_after_first_clip(job));
    const fs::path cache = job.parent_path() / "cache";
    ASSERT_TRUE(fs::is_directory(cache / "video_latents")) << "the first clip's entry is there";
    // Entries are complete or absent; the killed run's temporaries are hidden files.
    std::map<std::string, fs::file_time_type> kept;
    for (const auto& [file, time] : files_under(cache)) {
        if (fs::path(file).filename().string().front() != '.') {
            kept[file] = time;
        }
    }
    ASSERT_FALSE(kept.empty());

    const test::ProcessResult resumed = prepare(job);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
    const json summary = summary_of(events_of(resumed.out));
    EXPECT_EQ(summary["reused"].get<int>() + summary["prepared"].get<int>(), 5);
    EXPECT_LT(summary["latents_encoded"].get<int>(), 5) << "the first clip's latents were kept";
    const auto after = files_under(cache);
    for (const auto& [file, time] : kept) {
        ASSERT_EQ(after.count(file), 1u) << file;
        EXPECT_EQ(after.at(file), time) << file << " was encoded again";
    }

    std::vector<json> reference = jsonl(reference_job.parent_path() / "prepared.jsonl");
    std::vector<json> result = jsonl(job.parent_path() / "prepared.jsonl");
    ASSERT_EQ(result.size(), reference.size());
    for (std::size_t i = 1; i < result.size(); ++i) {
        EXPECT_EQ(result[i], reference[i]) << "line " << i + 1;
        if (result[i]["kind"] == "sample") {
            for (const char* field : {"latent", "prompt"}) {
                const std::string relative = result[i][field];
                EXPECT_EQ(test::read_bytes(cache / relative),
                          test::read_bytes(reference_job.parent_path() / "cache" / relative))
                    << relative;
            }
        }
    }
}

TEST_F(EnginePrepare, ImageToVideoWritesFirstFrameLatents) {
    const fs::path job = write_job("i2v", [](json& job) {
        job["model"] = test::tiny_i2v_pipeline().string();
        job["task"] = "i2v";
        job["dataset"]["resize_mode"] = "random_crop";
    });
    const test::ProcessResult result = prepare(job);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const std::vector<json> index = jsonl(job.parent_path() / "prepared.jsonl");
    EXPECT_EQ(index[0]["task"], "i2v");
    int samples = 0;
    for (const json& line : index) {
        if (line["kind"] != "sample") {
            continue;
        }
        ++samples;
        ASSERT_TRUE(line.contains("image_latent")) << line;
        const core::SafetensorsFile image(*project_ / "cache" /
                                          line["image_latent"].get<std::string>());
        EXPECT_EQ(
            image.at("mean").shape,
            (std::vector<std::int64_t>{latent_channels(), 1, line["height"].get<std::int64_t>() / 8,
                                       line["width"].get<std::int64_t>() / 8}));
        EXPECT_EQ(image.metadata().at("kind"), "image");
    }
    EXPECT_EQ(samples, 5);
}

TEST_F(EnginePrepare, ImageToVideoEncodesTheChosenFrame) {
    // The same two clips without and with a chosen conditioning frame: one after the bucket's
    // frames and one before its last (the reader seeks back for it).
    std::vector<common::ManifestEntry> entries(2);
    entries[0].path = "clips/a.mp4";
    entries[0].caption = "a gull glides over the harbour";
    entries[1].path = "clips/e.mp4";
    entries[1].caption = "waves on the pier";
    std::string error;
    ASSERT_TRUE(common::write_manifest(*project_ / "first.jsonl", entries, &error)) << error;
    entries[0].condition_frame = 11;
    entries[1].condition_frame = 3;
    ASSERT_TRUE(common::write_manifest(*project_ / "chosen.jsonl", entries, &error)) << error;
    auto i2v_job = [](const std::string& name, const std::string& manifest) {
        return write_job(name, [&](json& job) {
            job["model"] = test::tiny_i2v_pipeline().string();
            job["task"] = "i2v";
            job["dataset"]["manifest"] = "../../" + manifest;
        });
    };
    const fs::path first = i2v_job("i2v-first", "first.jsonl");
    const fs::path chosen = i2v_job("i2v-chosen", "chosen.jsonl");
    ASSERT_EQ(prepare(first).exit_code, 0);
    const test::ProcessResult result = prepare(chosen);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    auto samples = [](const fs::path& job) {
        std::vector<json> lines;
        for (const json& line : jsonl(job.parent_path() / "prepared.jsonl")) {
            if (line["kind"] == "sample") {
                lines.push_back(line);
            }
        }
        return lines;
    };
    const std::vector<json> plain = samples(first);
    const std::vector<json> picked = samples(chosen);
    ASSERT_EQ(plain.size(), 2u);
    ASSERT_EQ(picked.size(), 2u);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(picked[i]["latent"], plain[i]["latent"]); // the video is the same
        ASSERT_NE(picked[i]["image_latent"], plain[i]["image_latent"]);
        const core::SafetensorsFile a(*project_ / "cache" /
                                      plain[i]["image_latent"].get<std::string>());
        const core::SafetensorsFile b(*project_ / "cache" /
                                      picked[i]["image_latent"].get<std::string>());
        EXPECT_EQ(a.at("mean").shape, b.at("mean").shape);
        EXPECT_NE(
            test::read_bytes(*project_ / "cache" / plain[i]["image_latent"].get<std::string>()),
            test::read_bytes(*project_ / "cache" / picked[i]["image_latent"].get<std::string>()))
            << "the chosen frame was not the one encoded";
    }

    // A frame the clip does not have is named in the manifest check.
    EXPECT_FALSE(common::write_manifest(*project_ / "wrong.jsonl", {[&] {
        common::ManifestEntry entry = entries[0];
        entry.frames = 12;
        entry.condition_frame = 40;
        return entry;
    }()},
                                        &error));
    EXPECT_NE(error.find("condition_frame"), std::string::npos) << error;
}

TEST_F(EnginePrepare, ManifestPathsLeavingItsFolderAreSkippedUnlessTheJobAllowsThem) {
    // A manifest from elsewhere, in a folder of its own: two clips inside (one named by its
    // absolute path, as other tools write them), three ways out.
    const fs::path folder = *project_ / "downloaded";
    fs::create_directories(folder);
    fs::copy_file(*project_ / "clips" / "a.mp4", folder / "inside.mp4",
                  fs::copy_options::overwrite_existing);
    fs::copy_file(*project_ / "clips" / "e.mp4", folder / "absolute.mp4",
                  fs::copy_options::overwrite_existing);
    fs::remove(folder / "link.mp4");
    fs::create_symlink(*project_ / "clips" / "c.mp4", folder / "link.mp4");
    std::vector<common::ManifestEntry> entries(5);
    entries[0].path = "inside.mp4";
    entries[1].path = "../clips/b.mp4";
    entries[2].path = (*project_ / "clips" / "d.mp4").string();
    entries[3].path = "link.mp4";
    entries[4].path = (folder / "absolute.mp4").string();
    for (common::ManifestEntry& entry : entries) {
        entry.caption = "a caption";
    }
    std::string error;
    ASSERT_TRUE(common::write_manifest(folder / "data.jsonl", entries, &error)) << error;

    const auto outcome = [](const fs::path& job) {
        std::map<std::string, std::string> reasons; // file name -> "sample" or the skip reason
        for (const json& line : jsonl(job.parent_path() / "prepared.jsonl")) {
            const std::string name = fs::path(line.value("path", "")).filename().string();
            if (line["kind"] == "sample") {
                reasons[name] = "sample";
            } else if (line["kind"] == "skipped") {
                reasons[name] = line["reason"];
                EXPECT_NE(line["message"].get<std::string>().find("data.jsonl, line"),
                          std::string::npos)
                    << line["message"];
            }
        }
        return reasons;
    };
    const fs::path refused = write_job("outside-refused", [](json& job) {
        job["dataset"]["manifest"] = "../../downloaded/data.jsonl";
    });
    const test::ProcessResult first = prepare(refused);
    ASSERT_EQ(first.exit_code, 0) << first.err << first.out;
    const std::map<std::string, std::string> strict = outcome(refused);
    EXPECT_EQ(strict.at("inside.mp4"), "sample");
    EXPECT_EQ(strict.at("absolute.mp4"), "sample");
    EXPECT_EQ(strict.at("b.mp4"), "outside_dataset");
    EXPECT_EQ(strict.at("d.mp4"), "outside_dataset");
    EXPECT_EQ(strict.at("link.mp4"), "outside_dataset");

    const fs::path allowed = write_job("outside-allowed", [](json& job) {
        job["dataset"]["manifest"] = "../../downloaded/data.jsonl";
        job["dataset"]["allow_paths_outside"] = true;
    });
    const test::ProcessResult second = prepare(allowed);
    ASSERT_EQ(second.exit_code, 0) << second.err << second.out;
    for (const auto& [name, reason] : outcome(allowed)) {
        EXPECT_EQ(reason, "sample") << name;
    }
}

// A manifest line that is not an entry (bad JSON, no path) is skipped before any clip: the
// clip progress still counts every line, so its total is the dataset's size.
TEST_F(EnginePrepare, ClipProgressCountsEveryManifestLineTheUnreadableOnesFirst) {
    const fs::path data = *project_ / "with-bad-lines.jsonl";
    std::ifstream in(*project_ / "data.jsonl");
    std::string first;
    std::getline(in, first);
    test::write_bytes(data, first + "\nthis is not json\n\n{\"v\":1,\"caption\":\"no path\"}\n");
    const fs::path job = write_job(
        "bad-lines", [](json& job) { job["dataset"]["manifest"] = "../../with-bad-lines.jsonl"; });
    const test::ProcessResult result = prepare(job);
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;
    std::vector<std::int64_t> done;
    for (const auto& event : events_of(result.out)) {
        if (event.kind == "progress" && event.body["unit"] == "clip") {
            EXPECT_EQ(event.body["total"], 3); // the blank line holds nothing
            done.push_back(event.body["done"].get<std::int64_t>());
        }
    }
    EXPECT_EQ(done, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(summary_of(events_of(result.out))["skipped"], 2);
}

// A faststart MP4 cut at 60% still lists its 50 frames: prepare skips it as "truncated", as
// the studio flags it on import, with a warning that names the file and the frames it holds,
// instead of training the frames left as a shorter clip.
TEST_F(EnginePrepare, TruncatedClipIsSkippedAsTheStudioFlagsIt) {
    const fs::path folder = *project_ / "truncated";
    fs::create_directories(folder);
    write_clip(folder / "whole.mp4", 64, 48, 50);
    const std::string bytes = test::read_bytes(folder / "whole.mp4");
    test::write_bytes(folder / "cut.mp4", bytes.substr(0, bytes.size() * 6 / 10));
    std::vector<common::ManifestEntry> entries(2);
    entries[0].path = "whole.mp4";
    entries[1].path = "cut.mp4";
    for (common::ManifestEntry& entry : entries) {
        entry.caption = "a caption";
    }
    std::string error;
    ASSERT_TRUE(common::write_manifest(folder / "data.jsonl", entries, &error)) << error;
    const fs::path job = write_job("truncated", [](json& job) {
        job["dataset"]["manifest"] = "../../truncated/data.jsonl";
        job["dataset"]["frame_buckets"] = json::array({9, 21});
    });
    const test::ProcessResult result = prepare(job);
    ASSERT_EQ(result.exit_code, 0) << result.err << result.out;

    std::vector<std::string> warnings;
    for (const auto& event : events_of(result.out)) {
        if (event.kind == "log" && event.body["level"] == "warning") {
            warnings.push_back(event.body["message"].get<std::string>());
        }
    }
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_NE(warnings[0].find((folder / "cut.mp4").string()), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("(truncated)"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("of the 50 frames the container lists are present"),
              std::string::npos)
        << warnings[0];
    std::map<std::string, json> lines;
    for (const json& line : jsonl(job.parent_path() / "prepared.jsonl")) {
        lines[fs::path(line.value("path", "")).filename().string()] = line;
    }
    EXPECT_EQ(lines.at("whole.mp4")["kind"], "sample");
    EXPECT_EQ(lines.at("cut.mp4")["kind"], "skipped");
    EXPECT_EQ(lines.at("cut.mp4")["reason"], "truncated");
}

// The `error` of a failed command, which docs/protocol.md has end with `done` "failed" carrying
// the same code.
protocol::ParsedMessage failure_event(const test::ProcessResult& result) {
    const auto events = events_of(result.out);
    if (events.size() < 2) {
        ADD_FAILURE() << "fewer than two events: " << result.out;
        return {};
    }
    const protocol::ParsedMessage& done = events.back();
    const protocol::ParsedMessage& error = events[events.size() - 2];
    EXPECT_EQ(done.kind, "done");
    EXPECT_EQ(done.body["status"], "failed");
    EXPECT_EQ(done.body["summary"]["code"], error.body["code"]);
    return error;
}

TEST_F(EnginePrepare, UnusableCacheOrModelIsAnErrorEvent) {
    const fs::path blocked =
        write_job("blocked", [](json& job) { job["dataset"]["cache_dir"] = "not-a-folder"; });
    test::write_bytes(blocked.parent_path() / "not-a-folder", "a file");
    const test::ProcessResult io = prepare(blocked);
    EXPECT_EQ(io.exit_code, 1);
    const protocol::ParsedMessage io_error = failure_event(io);
    EXPECT_EQ(io_error.kind, "error");
    EXPECT_EQ(io_error.body["code"], "io");
    EXPECT_NE(io_error.body["message"].get<std::string>().find("not-a-folder"), std::string::npos);

    const fs::path model = *project_ / "model-without-vae";
    fs::copy(test::tiny_pipeline(), model, fs::copy_options::recursive);
    fs::remove_all(model / "vae");
    const fs::path no_vae = write_job("no-vae", [&](json& job) { job["model"] = model.string(); });
    const test::ProcessResult bad = prepare(no_vae);
    EXPECT_EQ(bad.exit_code, 1);
    const protocol::ParsedMessage model_error = failure_event(bad);
    EXPECT_EQ(model_error.kind, "error");
    EXPECT_EQ(model_error.body["code"], "bad_input");
    EXPECT_NE(model_error.body["message"].get<std::string>().find("vae"), std::string::npos);
    EXPECT_FALSE(model_error.body.value("hint", "").empty());

    const fs::path missing =
        write_job("no-manifest", [](json& job) { job["dataset"]["manifest"] = "nowhere.jsonl"; });
    const test::ProcessResult unread = prepare(missing);
    EXPECT_EQ(unread.exit_code, 1);
    EXPECT_EQ(failure_event(unread).body["code"], "io");
}

} // namespace
} // namespace tuneframe
