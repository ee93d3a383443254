// A TensorBoard file that stops growing (a full disk) stops the run with an Io error, as a failed
// write of events.jsonl does, instead of leaving the run's TensorBoard record silently short.
#include "engine/core/event_emitter.h"
#include "engine/tensorboard/tensorboard_sink.h"
#include "tests/support/full_disk.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace tuneframe::tensorboard {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path only_file_in(const fs::path& folder) {
    fs::path found;
    for (const auto& entry : fs::directory_iterator(folder)) {
        found = entry.path();
    }
    return found;
}

TEST(TensorBoardSink, AWriteThatFailsStopsTheRunWithAnIoErrorNamingTheFile) {
    test::TemporaryDirectory dir;
    // The sink's first records (the file version, the hparams) fit; the steps soon do not.
    const std::string outcome = test::with_file_size_limit(2000, [&]() -> std::string {
        core::EventEmitter events(-1);
        events.attach_log(dir / "events.jsonl");
        events.add_observer(std::make_unique<TensorBoardSink>(
            dir / "tensorboard", json{{"v", 1}, {"optimizer", {{"lr", 1e-4}}}}));
        for (int step = 1; step <= 200; ++step) {
            try {
                events.emit(protocol::EventType::Step,
                            {{"step", step}, {"loss", 0.5}, {"lr", 1e-4}, {"grad_norm", 0.1}});
            } catch (const core::Error& error) {
                return std::string(core::error_code_name(error.code())) + ": " + error.what();
            }
        }
        return "no error after 200 steps";
    });
    const fs::path file = only_file_in(dir / "tensorboard");
    EXPECT_EQ(outcome.rfind("io: Cannot write the TensorBoard event file", 0), 0u) << outcome;
    EXPECT_NE(outcome.find(file.string()), std::string::npos) << outcome;
    EXPECT_NE(outcome.find("free on its drive"), std::string::npos) << outcome;
}

TEST(TensorBoardSink, AFolderItCannotCreateIsAnIoErrorNotAWarning) {
    test::TemporaryDirectory dir;
    test::write_bytes(dir / "job.json", R"({"v":1,"model":"m","dataset":{"manifest":"d.jsonl"}})");
    test::write_bytes(dir / "tensorboard", "a file where the folder goes");
    core::EventEmitter events(-1);
    try {
        TensorBoardSink::attach(events, dir / "job.json");
        FAIL() << "the run would start without its TensorBoard record";
    } catch (const core::Error& error) {
        EXPECT_EQ(error.code(), core::ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("tensorboard"), std::string::npos);
    }
}

} // namespace
} // namespace tuneframe::tensorboard
