// A run's protocol events through TensorBoardSink, read back record by record with the test's
// own TFRecord reader (bitwise CRC-32C) and the protobuf classes of our .proto: every record's
// framing and CRCs, and every value TensorBoard would show.
#include "engine/core/event_emitter.h"
#include "engine/core/json_file.h"
#include "engine/tensorboard/tensorboard_event.pb.h"
#include "engine/tensorboard/tensorboard_hparams.pb.h"
#include "engine/tensorboard/tensorboard_sink.h"
#include "tests/engine/tensorboard/flat_colour_video.h"
#include "tests/engine/tensorboard/record_reader.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>
#include <png.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace tuneframe::tensorboard {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
namespace pb = tuneframe::tensorboard::proto;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

json job() {
    return {{"v", 1},
            {"mode", "lora"},
            {"optimizer", {{"name", "adamw"}, {"lr", 1e-4}}},
            {"lora", {{"rank", 4}}},
            {"dataset", {{"resolution_buckets", {{32, 48}}}, {"random_flip", 0.5}}},
            {"gradient_checkpointing", true},
            {"trigger_word", nullptr}};
}

json mem(double allocated_gib) {
    return json::array({{{"rank", 0},
                         {"allocated", allocated_gib * kGiB},
                         {"reserved", 2 * kGiB},
                         {"peak", 3 * kGiB}},
                        {{"rank", 1},
                         {"allocated", allocated_gib * kGiB / 2},
                         {"reserved", 2 * kGiB},
                         {"peak", 1.5 * kGiB}}});
}

json step(int number, json loss) {
    return protocol::make_event(protocol::EventType::Step, {{"step", number},
                                                            {"epoch", 0},
                                                            {"loss", loss},
                                                            {"lr", 1e-4 * number},
                                                            {"grad_norm", 0.25 * number},
                                                            {"step_time_s", 1.5},
                                                            {"samples_per_s", 2.0},
                                                            {"tokens_per_s", 1000.0 * number},
                                                            {"mem", mem(number)}});
}

// What a short run with one validation says, in order.
std::vector<json> run_events(const fs::path& video) {
    using protocol::EventType;
    return {
        protocol::make_event(EventType::Hello, {{"protocol", 1}}),
        protocol::make_event(EventType::Memory, {{"phase", "before_training"}, {"mem", mem(1)}}),
        step(1, 0.5),
        step(2, 0.3),
        step(3, nullptr), // a NaN loss reaches JSON as null
        step(4, 0.4),
        protocol::make_event(EventType::Validation, {{"step", 4},
                                                     {"prompt_index", 0},
                                                     {"prompt", "a red ball rolls"},
                                                     {"video", video.string()},
                                                     {"seconds", 1.0}}),
        protocol::make_event(EventType::Done, {{"status", "finished"}})};
}

fs::path only_event_file(const fs::path& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        files.push_back(entry.path());
    }
    EXPECT_EQ(files.size(), 1u);
    return files.empty() ? fs::path() : files.front();
}

std::vector<pb::Event> parse(const test::RecordFile& file) {
    std::vector<pb::Event> events;
    for (const std::string& record : file.records) {
        pb::Event event;
        EXPECT_TRUE(event.ParseFromString(record));
        events.push_back(event);
    }
    return events;
}

// tag -> step -> value of every simple_value in the file.
std::map<std::string, std::map<std::int64_t, float>> scalars(const std::vector<pb::Event>& events) {
    std::map<std::string, std::map<std::int64_t, float>> out;
    for (const pb::Event& event : events) {
        for (const pb::Summary::Value& value : event.summary().value()) {
            if (value.has_simple_value()) {
                EXPECT_EQ(out[value.tag()].count(event.step()), 0u) << value.tag();
                out[value.tag()][event.step()] = value.simple_value();
            }
        }
    }
    return out;
}

pb::hparams::HParamsPluginData hparams_in(const pb::Event& event, const std::string& tag) {
    pb::hparams::HParamsPluginData data;
    EXPECT_EQ(event.summary().value_size(), 1);
    const pb::Summary::Value& value = event.summary().value(0);
    EXPECT_EQ(value.tag(), tag);
    EXPECT_EQ(value.metadata().plugin_data().plugin_name(), "hparams");
    EXPECT_EQ(value.tensor().dtype(), pb::DT_FLOAT);
    EXPECT_TRUE(data.ParseFromString(value.metadata().plugin_data().content()));
    EXPECT_EQ(data.version(), 0);
    return data;
}

struct DecodedPng {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> rgb;
};

DecodedPng decode_png(const std::string& png) {
    png_image image{};
    image.version = PNG_IMAGE_VERSION;
    DecodedPng out;
    if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) {
        ADD_FAILURE() << image.message;
        return out;
    }
    image.format = PNG_FORMAT_RGB;
    out.width = static_cast<int>(image.width);
    out.height = static_cast<int>(image.height);
    out.rgb.resize(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) {
        ADD_FAILURE() << image.message;
    }
    return out;
}

class TensorBoardEvents : public ::testing::Test {
protected:
    void SetUp() override {
        test::write_flat_colour_video((directory_ / "step-4.mp4").string(), 9, 48, 32);
        {
            TensorBoardSink sink(directory_ / "tensorboard", job());
            for (const json& event : run_events(directory_ / "step-4.mp4")) {
                sink.on_event(protocol::event_type_from_string(event["type"].get<std::string>()),
                              event);
            }
        }
        path_ = only_event_file(directory_ / "tensorboard");
    }

    test::TemporaryDirectory directory_;
    fs::path path_;
};

TEST_F(TensorBoardEvents, EveryRecordIsFramedWithGoodCrcs) {
    EXPECT_EQ(path_.filename().string().rfind("events.out.tfevents.", 0), 0u) << path_;
    const test::RecordFile file = test::read_records(path_);
    EXPECT_EQ(file.problem, "");
    ASSERT_GE(file.records.size(), 9u);
    const std::vector<pb::Event> events = parse(file);
    EXPECT_EQ(events.front().file_version(), "brain.Event:2");
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const pb::Event& event : events) {
        EXPECT_NEAR(event.wall_time(), now, 60.0);
    }
}

TEST_F(TensorBoardEvents, AFlippedByteIsCaught) {
    std::string bytes = test::read_bytes(path_);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
    test::write_bytes(path_, bytes);
    EXPECT_NE(test::read_records(path_).problem, "");
}

TEST_F(TensorBoardEvents, ScalarsFollowTheStepEvents) {
    const auto values = scalars(parse(test::read_records(path_)));
    // The studio's smoothing: debiased EMA, weight 0.6, skipping the NaN step.
    const std::map<std::int64_t, float> raw = {{1, 0.5f}, {2, 0.3f}, {4, 0.4f}};
    const std::map<std::int64_t, float> smoothed = {
        {1, 0.5f}, {2, 0.24f / 0.64f}, {4, 0.304f / 0.784f}};
    EXPECT_EQ(values.at("loss/raw"), raw);
    ASSERT_EQ(values.at("loss/smoothed").size(), 3u);
    for (const auto& [number, value] : smoothed) {
        EXPECT_FLOAT_EQ(values.at("loss/smoothed").at(number), value) << number;
    }
    for (std::int64_t number = 1; number <= 4; ++number) {
        EXPECT_FLOAT_EQ(values.at("learning_rate").at(number), 1e-4f * number);
        EXPECT_FLOAT_EQ(values.at("grad_norm").at(number), 0.25f * number);
        EXPECT_FLOAT_EQ(values.at("step_time_s").at(number), 1.5f);
        EXPECT_FLOAT_EQ(values.at("samples_per_s").at(number), 2.0f);
        EXPECT_FLOAT_EQ(values.at("tokens_per_s").at(number), 1000.0f * number);
        EXPECT_FLOAT_EQ(values.at("memory/rank0/allocated_gib").at(number), number);
        EXPECT_FLOAT_EQ(values.at("memory/rank1/allocated_gib").at(number), number / 2.0f);
        EXPECT_FLOAT_EQ(values.at("memory/rank0/reserved_gib").at(number), 2.0f);
        EXPECT_FLOAT_EQ(values.at("memory/rank1/peak_gib").at(number), 1.5f);
    }
    EXPECT_FLOAT_EQ(values.at("memory_phase/before_training/rank0/peak_gib").at(0), 3.0f);
    EXPECT_FLOAT_EQ(values.at("memory_phase/before_training/rank1/allocated_gib").at(0), 0.5f);
}

TEST_F(TensorBoardEvents, HyperParametersOpenAndCloseTheSession) {
    const std::vector<pb::Event> events = parse(test::read_records(path_));
    const auto start = hparams_in(events.at(1), "_hparams_/session_start_info");
    ASSERT_TRUE(start.has_session_start_info());
    const auto& hparams = start.session_start_info().hparams();
    EXPECT_DOUBLE_EQ(hparams.at("optimizer.lr").number_value(), 1e-4);
    EXPECT_EQ(hparams.at("optimizer.name").string_value(), "adamw");
    EXPECT_DOUBLE_EQ(hparams.at("lora.rank").number_value(), 4);
    EXPECT_EQ(hparams.at("dataset.resolution_buckets").string_value(), "[[32,48]]");
    EXPECT_TRUE(hparams.at("gradient_checkpointing").bool_value());
    EXPECT_EQ(hparams.count("v"), 0u);
    EXPECT_EQ(hparams.count("trigger_word"), 0u);
    EXPECT_EQ(hparams.size(), 7u);

    const auto end = hparams_in(events.back(), "_hparams_/session_end_info");
    ASSERT_TRUE(end.has_session_end_info());
    EXPECT_EQ(end.session_end_info().status(), pb::hparams::STATUS_SUCCESS);

    int starts = 0;
    for (const pb::Event& event : events) {
        if (event.has_session_log()) {
            ++starts;
            EXPECT_EQ(event.session_log().status(), pb::SessionLog::START);
            EXPECT_EQ(event.step(), 1);
        }
    }
    EXPECT_EQ(starts, 1);
}

TEST_F(TensorBoardEvents, ValidationShowsFirstMiddleAndLastFrames) {
    std::vector<std::pair<std::int64_t, pb::Summary::Value>> images;
    for (const pb::Event& event : parse(test::read_records(path_))) {
        for (const pb::Summary::Value& value : event.summary().value()) {
            if (value.has_image()) {
                images.emplace_back(event.step(), value);
            }
        }
    }
    ASSERT_EQ(images.size(), 1u);
    const auto& [number, value] = images.front();
    EXPECT_EQ(number, 4);
    EXPECT_EQ(value.tag(), "validation/prompt_0");
    EXPECT_EQ(value.metadata().summary_description(), "a red ball rolls");
    EXPECT_EQ(value.image().colorspace(), 3);
    EXPECT_EQ(value.image().width(), 3 * 48);
    EXPECT_EQ(value.image().height(), 32);
    const DecodedPng png = decode_png(value.image().encoded_image_string());
    ASSERT_EQ(png.width, 3 * 48);
    ASSERT_EQ(png.height, 32);
    const int frames[] = {0, 4, 8};
    for (int third = 0; third < 3; ++third) {
        const std::size_t centre = (16 * png.width + third * 48 + 24) * 3;
        const auto colour = test::flat_colour(frames[third]);
        for (int channel = 0; channel < 3; ++channel) {
            EXPECT_NEAR(png.rgb[centre + channel], colour[channel], 12)
                << "frame " << frames[third] << " channel " << channel;
        }
    }
}

TEST(TensorBoardSinkAttach, AJobItCannotReadIsAWarningNotAFailure) {
    test::TemporaryDirectory directory;
    std::FILE* output = std::tmpfile();
    ASSERT_NE(output, nullptr);
    {
        core::EventEmitter events(fileno(output));
        TensorBoardSink::attach(events, directory / "job.json");
    }
    std::rewind(output);
    char line[4096] = {};
    ASSERT_NE(std::fgets(line, sizeof line, output), nullptr);
    std::fclose(output);
    const json event = json::parse(line);
    EXPECT_EQ(event["type"], "log");
    EXPECT_EQ(event["level"], "warning");
    EXPECT_FALSE(fs::exists(directory / "tensorboard"));
}

} // namespace
} // namespace tuneframe::tensorboard
