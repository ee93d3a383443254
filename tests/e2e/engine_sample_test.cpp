// `tuneframe-engine sample` as users and the studio run it: golden parity from the command line,
// the event stream, and MP4 files that decode back with the frames and size asked for.
#include "common/protocol.h"
#include "engine/core/json_file.h"
#include "engine/core/safetensors/safetensors_file.h"
#include "tests/support/process_runner.h"
#include "tests/support/test_paths.h"

#ifdef TUNEFRAME_HAVE_MEDIA
#include "media/video_reader.h"
#include "media/video_writer.h"
#endif

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

namespace tuneframe {
namespace {

namespace fs = std::filesystem;
using test::run_process;

std::vector<protocol::ParsedMessage> events_of(const std::string& out) {
    std::vector<protocol::ParsedMessage> events;
    std::istringstream stream(out);
    for (std::string line; std::getline(stream, line);) {
        std::string error;
        auto event = protocol::parse_line(line, "type", &error);
        EXPECT_TRUE(event) << error << ": " << line;
        if (event) {
            events.push_back(*event);
        }
    }
    return events;
}

std::vector<float> floats_of(const core::SafetensorsFile& file, const core::TensorInfo& info) {
    std::vector<float> values(info.nbytes() / sizeof(float));
    std::memcpy(values.data(), file.data(info), info.nbytes());
    return values;
}

TEST(EngineSample, ReproducesTheT2VGoldenFromTheCommandLine) {
    const fs::path golden = test::golden_dir();
    if (golden.empty()) {
        if (test::running_in_ci()) {
            FAIL() << "../shared/golden is missing";
        }
        GTEST_SKIP();
    }
    const fs::path folder = golden / "pipeline_t2v";
    const nlohmann::json call = core::read_json_file(folder / "config.json")["call"];
    test::TemporaryDirectory dir;
    const auto result = run_process({test::engine_path(),
                                     "sample",
                                     "--model",
                                     (folder / "pipeline").string(),
                                     "--prompt",
                                     call["prompt"].get<std::string>(),
                                     "--negative-prompt",
                                     call["negative_prompt"].get<std::string>(),
                                     "--frames",
                                     "9",
                                     "--height",
                                     "32",
                                     "--width",
                                     "32",
                                     "--steps",
                                     "3",
                                     "--guidance",
                                     "6",
                                     "--max-sequence-length",
                                     "16",
                                     "--initial-latents",
                                     (folder / "inputs.safetensors").string(),
                                     "--save-tensors",
                                     (dir / "out.safetensors").string(),
                                     "--device",
                                     "cpu"});
    ASSERT_EQ(result.exit_code, 0) << result.err;

    const core::SafetensorsFile expected(folder / "outputs.safetensors");
    const core::SafetensorsFile actual(dir / "out.safetensors");
    for (const core::TensorInfo& want : expected.tensors()) {
        const core::TensorInfo* got = actual.find(want.name);
        ASSERT_NE(got, nullptr) << want.name;
        ASSERT_EQ(got->shape, want.shape) << want.name;
        ASSERT_EQ(got->dtype, want.dtype) << want.name;
        if (want.dtype != core::DType::F32) {
            EXPECT_EQ(std::memcmp(actual.data(*got), expected.data(want), want.end - want.begin), 0)
                << want.name;
            continue;
        }
        const std::vector<float> a = floats_of(actual, *got);
        const std::vector<float> e = floats_of(expected, want);
        double error = 0;
        double largest = 0;
        for (std::size_t i = 0; i < e.size(); ++i) {
            error = std::max(error, std::abs(static_cast<double>(a[i]) - e[i]));
            largest = std::max(largest, std::abs(static_cast<double>(e[i])));
        }
        EXPECT_LE(error, 1e-4 + 1e-4 * largest) << want.name;
    }

    const auto events = events_of(result.out);
    ASSERT_GE(events.size(), 3u);
    EXPECT_EQ(events.front().kind, "hello");
    EXPECT_EQ(events.back().kind, "done");
    std::vector<std::int64_t> steps;
    for (const auto& event : events) {
        if (event.kind == "progress") {
            EXPECT_EQ(event.body["unit"], "step");
            EXPECT_EQ(event.body["total"], 3);
            steps.push_back(event.body["done"].get<std::int64_t>());
        }
    }
    EXPECT_EQ(steps, (std::vector<std::int64_t>{0, 1, 2, 3}));
}

TEST(EngineSample, ABadRequestIsAnErrorEventWithAHint) {
    test::TemporaryDirectory dir;
    const auto result =
        run_process({test::engine_path(), "sample", "--model", test::tiny_pipeline().string(),
                     "--prompt", "a ball", "--frames", "10", "--height", "32", "--width", "32",
                     "--out", (dir / "x.mp4").string()});
    EXPECT_EQ(result.exit_code, 1);
    const auto events = events_of(result.out);
    ASSERT_GE(events.size(), 2u);
    const auto& error = events[events.size() - 2];
    EXPECT_EQ(error.kind, "error");
    EXPECT_EQ(error.body["code"], "bad_input");
    EXPECT_FALSE(error.body["hint"].get<std::string>().empty());
    EXPECT_EQ(events.back().kind, "done");
    EXPECT_EQ(events.back().body["status"], "failed");
    EXPECT_FALSE(fs::exists(dir / "x.mp4"));
}

std::vector<float> final_latents(const fs::path& tensors) {
    const core::SafetensorsFile file(tensors);
    return floats_of(file, file.at("final_latents"));
}

// A fine-tuned transformer folder (what a full fine-tune exports) samples in place of the
// pipeline's own: exactly as a pipeline holding it would, and not as the pipeline's own.
TEST(EngineSample, AFineTunedTransformerFolderTakesThePipelinesPlace) {
    test::TemporaryDirectory dir;
    const fs::path other = dir / "other";
    ASSERT_EQ(run_process({test::engine_path(), "init-model", "--arch", "cogvideox-tiny", "--seed",
                           "7", "--out", other.string()})
                  .exit_code,
              0);
    const fs::path holding = dir / "holding";
    fs::copy(test::tiny_pipeline(), holding, fs::copy_options::recursive);
    fs::remove_all(holding / "transformer");
    fs::copy(other / "transformer", holding / "transformer", fs::copy_options::recursive);
    const auto sample = [&](const fs::path& model, std::vector<std::string> extra,
                            const std::string& name) {
        std::vector<std::string> command = {
            test::engine_path(), "sample",     "--model",        model.string(),
            "--prompt",          "a red ball", "--frames",       "9",
            "--height",          "32",         "--width",        "32",
            "--steps",           "2",          "--save-tensors", (dir / name).string()};
        command.insert(command.end(), extra.begin(), extra.end());
        return run_process(command);
    };
    const auto replaced =
        sample(test::tiny_pipeline(), {"--transformer", (other / "transformer").string()}, "r.st");
    ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
    EXPECT_EQ(events_of(replaced.out).back().body["summary"]["transformer"],
              fs::absolute(other / "transformer").string());
    ASSERT_EQ(sample(holding, {}, "h.st").exit_code, 0);
    ASSERT_EQ(sample(test::tiny_pipeline(), {}, "o.st").exit_code, 0);
    EXPECT_EQ(final_latents(dir / "r.st"), final_latents(dir / "h.st"));
    EXPECT_NE(final_latents(dir / "r.st"), final_latents(dir / "o.st"));
}

TEST(EngineSample, ATransformerOfAnotherShapeIsRefusedNamingBoth) {
    test::TemporaryDirectory dir;
    const fs::path i2v = test::tiny_i2v_pipeline() / "transformer";
    const auto result =
        run_process({test::engine_path(), "sample", "--model", test::tiny_pipeline().string(),
                     "--transformer", i2v.string(), "--prompt", "x", "--frames", "9", "--height",
                     "32", "--width", "32", "--save-tensors", (dir / "x.st").string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find(i2v.string()), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("32 input channels"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("16 input channels"), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(dir / "x.st"));
    const auto empty =
        run_process({test::engine_path(), "sample", "--model", test::tiny_pipeline().string(),
                     "--transformer", dir.path().string(), "--prompt", "x", "--frames", "9",
                     "--height", "32", "--width", "32", "--save-tensors", (dir / "x.st").string()});
    EXPECT_EQ(empty.exit_code, 1);
    EXPECT_NE(empty.err.find("has no config.json"), std::string::npos) << empty.err;
}

#ifdef TUNEFRAME_HAVE_MEDIA

TEST(EngineSample, TinyModelWritesAnMp4WithTheFramesAndSizeAskedFor) {
    test::TemporaryDirectory dir;
    const fs::path video = dir / "tiny.mp4";
    const auto result = run_process(
        {test::engine_path(), "sample", "--model", test::tiny_pipeline().string(), "--prompt",
         "tfdemo a red ball bounces", "--frames", "17", "--height", "48", "--width", "64",
         "--steps", "2", "--scheduler", "dpm", "--out", video.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    media::VideoReader reader(video.string());
    EXPECT_EQ(reader.frame_count(), 17);
    EXPECT_EQ(reader.info().display_width, 64);
    EXPECT_EQ(reader.info().display_height, 48);
    EXPECT_NEAR(reader.info().frame_rate.value(), 8.0, 1e-9);
    const auto done = events_of(result.out).back();
    EXPECT_EQ(done.body["summary"]["video"], fs::absolute(video).string());
    EXPECT_EQ(done.body["summary"]["sampler"], "dpm");
}

TEST(EngineSample, ImageToVideoTakesAPictureOfAnotherSize) {
    test::TemporaryDirectory dir;
    media::WriterOptions png;
    png.container = "image2";
    png.codec = "png";
    {
        media::VideoWriter writer((dir / "first.png").string(), 50, 30, png);
        std::vector<std::uint8_t> rgb(50 * 30 * 3);
        for (std::size_t i = 0; i < rgb.size(); ++i) {
            rgb[i] = static_cast<std::uint8_t>(i * 7);
        }
        writer.write(rgb.data());
        writer.finish();
    }
    const fs::path video = dir / "i2v.mp4";
    const auto result = run_process({test::engine_path(),
                                     "sample",
                                     "--model",
                                     test::tiny_i2v_pipeline().string(),
                                     "--prompt",
                                     "the picture comes alive",
                                     "--image",
                                     (dir / "first.png").string(),
                                     "--frames",
                                     "9",
                                     "--height",
                                     "32",
                                     "--width",
                                     "48",
                                     "--steps",
                                     "2",
                                     "--fps",
                                     "12",
                                     "--out",
                                     video.string(),
                                     "--save-tensors",
                                     (dir / "t.safetensors").string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    media::VideoReader reader(video.string());
    EXPECT_EQ(reader.frame_count(), 9);
    EXPECT_EQ(reader.info().display_width, 48);
    EXPECT_NEAR(reader.info().frame_rate.value(), 12.0, 1e-9);
    const core::SafetensorsFile tensors(dir / "t.safetensors");
    const core::TensorInfo& image_latents = tensors.at("image_latents");
    EXPECT_EQ(image_latents.shape, (std::vector<std::int64_t>{1, 3, 16, 4, 6}));
}

TEST(EngineSample, AnImageForATextModelIsRefused) {
    test::TemporaryDirectory dir;
    const auto result =
        run_process({test::engine_path(), "sample", "--model", test::tiny_pipeline().string(),
                     "--prompt", "x", "--image", (dir / "missing.png").string(), "--frames", "9",
                     "--height", "32", "--width", "32", "--out", (dir / "x.mp4").string()});
    EXPECT_EQ(result.exit_code, 1);
    EXPECT_NE(result.err.find("missing.png"), std::string::npos) << result.err;
}

#endif

} // namespace
} // namespace tuneframe
