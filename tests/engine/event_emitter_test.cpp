#include "common/protocol.h"
#include "engine/core/event_emitter.h"
#include "tests/support/full_disk.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace tuneframe::core {
namespace {

using protocol::EventType;

// A pipe standing in for the studio's end of stdout.
class Pipe {
public:
    Pipe() {
        EXPECT_EQ(::pipe(fds_), 0);
        // Large bursts must not block the writer while the test has not read yet.
        ::fcntl(fds_[1], F_SETPIPE_SZ, 1 << 20);
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    int write_end() const { return fds_[1]; }
    void close_write() {
        if (fds_[1] >= 0) {
            ::close(fds_[1]);
            fds_[1] = -1;
        }
    }
    void close_read() {
        if (fds_[0] >= 0) {
            ::close(fds_[0]);
            fds_[0] = -1;
        }
    }
    std::vector<std::string> read_lines() {
        close_write();
        std::string text;
        char buffer[4096];
        ssize_t count;
        while ((count = ::read(fds_[0], buffer, sizeof buffer)) > 0) {
            text.append(buffer, static_cast<std::size_t>(count));
        }
        return split(text);
    }
    static std::vector<std::string> split(const std::string& text) {
        std::vector<std::string> lines;
        std::istringstream stream(text);
        for (std::string line; std::getline(stream, line);) {
            lines.push_back(line);
        }
        EXPECT_TRUE(text.empty() || text.back() == '\n') << "every event ends its line";
        return lines;
    }

private:
    int fds_[2] = {-1, -1};
};

protocol::ParsedMessage parse(const std::string& line) {
    std::string error;
    auto message = protocol::parse_line(line, "type", &error);
    EXPECT_TRUE(message.has_value()) << error << ": " << line;
    return message.value_or(protocol::ParsedMessage{});
}

TEST(EventEmitter, WritesVersionedJsonLines) {
    Pipe pipe;
    {
        EventEmitter events(pipe.write_end());
        events.hello({{"libtorch", "1.13.0"}, {"devices", nlohmann::json::array()}});
        events.phase("train");
        events.progress(3, 10, "clips");
        events.log("warning", "a \"quoted\"\nmessage");
        events.error(Error(ErrorCode::Oom, "out of memory", "lower the batch size"));
        events.done("ok", {{"steps", 20}});
    }
    auto lines = pipe.read_lines();
    ASSERT_EQ(lines.size(), 6u);
    auto hello = parse(lines[0]);
    EXPECT_EQ(hello.kind, "hello");
    EXPECT_EQ(hello.version, protocol::kVersion);
    EXPECT_EQ(hello.body["engine_version"], TUNEFRAME_VERSION);
    EXPECT_EQ(hello.body["protocol"], protocol::kVersion);
    EXPECT_EQ(hello.body["libtorch"], "1.13.0");
    EXPECT_EQ(parse(lines[1]).body["phase"], "train");
    auto progress = parse(lines[2]);
    EXPECT_EQ(progress.body["done"], 3);
    EXPECT_EQ(progress.body["total"], 10);
    EXPECT_EQ(progress.body["unit"], "clips");
    EXPECT_EQ(parse(lines[3]).body["message"], "a \"quoted\"\nmessage");
    auto error = parse(lines[4]);
    EXPECT_EQ(error.kind, "error");
    EXPECT_EQ(error.body["code"], "oom");
    EXPECT_EQ(error.body["hint"], "lower the batch size");
    auto done = parse(lines[5]);
    EXPECT_EQ(done.body["status"], "ok");
    EXPECT_EQ(done.body["summary"]["steps"], 20);
}

TEST(EventEmitter, InvalidUtf8InMessagesIsReplacedNotFatal) {
    Pipe pipe;
    {
        EventEmitter events(pipe.write_end());
        events.log("info", "clip-\xff\xfe.mp4");
    }
    auto lines = pipe.read_lines();
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_NE(parse(lines[0]).body["message"].get<std::string>().find("clip-"), std::string::npos);
}

TEST(EventEmitter, AppendsTheSameLinesToTheRunLog) {
    test::TemporaryDirectory dir;
    Pipe pipe;
    {
        EventEmitter events(pipe.write_end());
        events.log("info", "before the log is attached");
        events.attach_log(dir / "events.jsonl");
        events.progress(1, 2, "steps");
        events.done("ok");
    }
    auto piped = pipe.read_lines();
    auto logged = Pipe::split(test::read_bytes(dir / "events.jsonl"));
    ASSERT_EQ(piped.size(), 3u);
    ASSERT_EQ(logged.size(), 2u);
    EXPECT_EQ(logged[0], piped[1]);
    EXPECT_EQ(logged[1], piped[2]);
}

// Records what it is shown; the emitter owns it, so the test keeps a view of its list.
class RecordingObserver : public EventObserver {
public:
    explicit RecordingObserver(std::vector<nlohmann::json>* seen, bool* destroyed)
        : seen_(seen)
        , destroyed_(destroyed) {}
    ~RecordingObserver() override { *destroyed_ = true; }
    void on_event(protocol::EventType type, const nlohmann::json& event) noexcept override {
        EXPECT_EQ(protocol::to_string(type), event["type"].get<std::string>());
        seen_->push_back(event);
    }

private:
    std::vector<nlohmann::json>* seen_;
    bool* destroyed_;
};

TEST(EventEmitter, ShowsObserversEveryLaterEventInOrderUntilItEnds) {
    Pipe pipe;
    std::vector<nlohmann::json> seen;
    bool destroyed = false;
    {
        EventEmitter events(pipe.write_end());
        events.log("info", "before the observer");
        events.add_observer(std::make_unique<RecordingObserver>(&seen, &destroyed));
        events.progress(1, 2, "steps");
        events.done("ok");
        EXPECT_FALSE(destroyed);
    }
    EXPECT_TRUE(destroyed);
    auto piped = pipe.read_lines();
    ASSERT_EQ(piped.size(), 3u);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], nlohmann::json::parse(piped[1]));
    EXPECT_EQ(seen[1], nlohmann::json::parse(piped[2]));
    EXPECT_EQ(seen[1]["v"], protocol::kVersion);
}

TEST(EventEmitter, KeepsLoggingWhenTheReaderGoesAway) {
    std::signal(SIGPIPE, SIG_IGN); // as the engine's main does
    test::TemporaryDirectory dir;
    Pipe pipe;
    EventEmitter events(pipe.write_end());
    events.attach_log(dir / "events.jsonl");
    pipe.close_read();
    events.log("info", "nobody reads this pipe");
    events.done("ok");
    EXPECT_TRUE(events.output_broken());
    EXPECT_EQ(Pipe::split(test::read_bytes(dir / "events.jsonl")).size(), 2u);
}

TEST(EventEmitter, ConcurrentEventsNeverInterleave) {
    Pipe pipe;
    constexpr int kThreads = 4;
    constexpr int kEvents = 250;
    {
        EventEmitter events(pipe.write_end());
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&events, t] {
                for (int i = 0; i < kEvents; ++i) {
                    events.emit(EventType::Step,
                                {{"rank", t}, {"step", i}, {"padding", std::string(200, 'x')}});
                }
            });
        }
        for (auto& thread : threads) {
            thread.join();
        }
    }
    auto lines = pipe.read_lines();
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(kThreads * kEvents));
    std::vector<int> next(kThreads, 0);
    for (const auto& line : lines) {
        auto message = parse(line);
        int rank = message.body["rank"];
        EXPECT_EQ(message.body["step"], next[rank]++) << "each thread's events stay in order";
    }
}

TEST(EventEmitter, UnwritableLogFolderIsAnIoError) {
    EventEmitter events(-1);
    EXPECT_THROW(events.attach_log("/nonexistent-folder/events.jsonl"), Error);
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
    std::vector<std::string> lines;
    std::istringstream stream(test::read_bytes(file));
    for (std::string line; std::getline(stream, line);) {
        lines.push_back(line);
    }
    return lines;
}

bool is_event(const std::string& line) {
    return protocol::parse_line(line, "type", nullptr).has_value();
}

// A process cut off mid-line (killed, or by a full disk) left a torn last line; the next one to
// append starts on a line of its own, so only the torn line is lost, never the next event.
TEST(EventEmitter, AResumedLogStartsOnANewLineAfterATornOne) {
    test::TemporaryDirectory dir;
    const std::string torn = R"({"epoch":0,"loss":0.52,"samples_per_s":2.90891461)";
    test::write_bytes(dir / "events.jsonl", R"({"phase":"train","type":"phase","v":1})"
                                            "\n" +
                                                torn);
    {
        EventEmitter events(-1);
        events.attach_log(dir / "events.jsonl");
        events.phase("train");
        events.done("finished");
    }
    const std::vector<std::string> lines = lines_of(dir / "events.jsonl");
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[1], torn);
    EXPECT_EQ(parse(lines[2]).body["phase"], "train");
    EXPECT_EQ(parse(lines[3]).body["status"], "finished");
    EXPECT_EQ(test::read_bytes(dir / "events.jsonl").back(), '\n');
}

// A child whose files stop growing at 700 bytes: the write that crosses the limit fails part
// way, and the run stops at once with an Io error naming the log and the room left.
TEST(EventEmitter, AFailedWriteOfTheLogStopsTheRunWithAnIoError) {
    test::TemporaryDirectory dir;
    const std::filesystem::path log = dir / "events.jsonl";
    const std::string outcome = test::with_file_size_limit(700, [&]() -> std::string {
        EventEmitter events(-1);
        events.attach_log(log);
        for (int step = 1; step <= 100; ++step) {
            try {
                events.emit(EventType::Step, {{"step", step}, {"loss", 0.5}});
            } catch (const Error& error) {
                events.error(error); // no room for it: it must not throw either
                events.done("failed");
                return std::string(error_code_name(error.code())) + " at step " +
                       std::to_string(step) + ": " + error.what();
            }
        }
        return "no error after 100 steps";
    });
    EXPECT_EQ(outcome.rfind("io at step ", 0), 0u) << outcome;
    EXPECT_NE(outcome.find(log.string()), std::string::npos) << outcome;
    EXPECT_NE(outcome.find("File too large"), std::string::npos) << outcome;
    EXPECT_NE(outcome.find("free on its drive"), std::string::npos) << outcome;
    EXPECT_EQ(std::filesystem::file_size(log), 700u);

    // The run resumed with room again: its first event is whole, after the torn line.
    {
        EventEmitter events(-1);
        events.attach_log(log);
        events.phase("train");
    }
    const std::vector<std::string> lines = lines_of(log);
    ASSERT_GE(lines.size(), 3u);
    EXPECT_FALSE(is_event(lines[lines.size() - 2])) << "the line the limit cut";
    EXPECT_EQ(parse(lines.back()).body["phase"], "train");
    for (std::size_t i = 0; i + 2 < lines.size(); ++i) {
        EXPECT_TRUE(is_event(lines[i])) << lines[i];
    }
}

// A drive that fills while the run logs (another program took the space): the log keeps room
// past its end for the run's last events, so `error` and `done` still land after the failure.
TEST(EventEmitter, TheErrorAndDoneFitOnADiskThatHasJustFilled) {
    test::TemporaryDirectory dir;
    test::SmallDisk disk(dir / "disk", 512 * 1024);
    if (!disk.mounted()) {
        GTEST_SKIP() << disk.why_not();
    }
    const std::filesystem::path log = disk.folder() / "events.jsonl";
    EventEmitter events(-1);
    events.attach_log(log);
    events.phase("train");
    const std::filesystem::path filler = disk.fill();
    std::optional<Error> stopped;
    for (int step = 1; step <= 1000 && !stopped; ++step) {
        try {
            events.emit(EventType::Step,
                        {{"step", step}, {"loss", 0.5}, {"padding", std::string(300, 'x')}});
        } catch (const Error& error) {
            stopped = error;
        }
    }
    ASSERT_TRUE(stopped) << "the run went on logging on a full disk";
    EXPECT_EQ(stopped->code(), ErrorCode::Io);
    const std::string message = stopped->what();
    EXPECT_NE(message.find(log.string()), std::string::npos) << message;
    EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
    EXPECT_NE(message.find("free on its drive"), std::string::npos) << message;
    EXPECT_FALSE(stopped->hint().empty());
    events.error(*stopped);
    events.done("failed", {{"code", "io"}});

    const std::vector<std::string> lines = lines_of(log);
    ASSERT_GE(lines.size(), 3u);
    for (const std::string& line : lines) {
        EXPECT_TRUE(is_event(line)) << line;
    }
    const protocol::ParsedMessage error = parse(lines[lines.size() - 2]);
    EXPECT_EQ(error.kind, "error");
    EXPECT_EQ(error.body["code"], "io");
    EXPECT_EQ(error.body["message"], message);
    EXPECT_EQ(parse(lines.back()).body["status"], "failed");
    EXPECT_EQ(test::read_bytes(log).back(), '\n');
    std::filesystem::remove(filler);
}

// Fails like a TensorBoard file on a full disk from the `fail_at`-th event it is shown.
class FailingObserver : public EventObserver {
public:
    FailingObserver(int fail_at, int* seen)
        : fail_at_(fail_at)
        , seen_(seen) {}
    void on_event(protocol::EventType, const nlohmann::json&) override {
        if (++*seen_ >= fail_at_) {
            throw Error(ErrorCode::Io, "Cannot write the TensorBoard event file 'tb': full");
        }
    }

private:
    int fail_at_;
    int* seen_;
};

TEST(EventEmitter, AnObserverThatCannotWriteStopsTheRunAndSeesNoMore) {
    test::TemporaryDirectory dir;
    int seen = 0;
    EventEmitter events(-1);
    events.attach_log(dir / "events.jsonl");
    events.add_observer(std::make_unique<FailingObserver>(2, &seen));
    events.phase("train");
    try {
        events.emit(EventType::Step, {{"step", 1}});
        FAIL() << "the run went on without its TensorBoard record";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::Io);
        EXPECT_NE(std::string(error.what()).find("TensorBoard"), std::string::npos);
        events.error(error);
    }
    events.done("failed");
    EXPECT_EQ(seen, 2);
    const std::vector<std::string> lines = lines_of(dir / "events.jsonl");
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(parse(lines[2]).kind, "error");
    EXPECT_EQ(parse(lines[3]).body["status"], "failed");
}

// Another thread (the command channel's) never gets the failure thrown at it; the command's
// own thread does, at its next event, and a `done` that claims success is refused.
TEST(EventEmitter, AFailureOnAnotherThreadStopsTheRunOnItsOwnThread) {
    test::TemporaryDirectory dir;
    int seen = 0;
    EventEmitter events(-1);
    events.attach_log(dir / "events.jsonl");
    events.add_observer(std::make_unique<FailingObserver>(1, &seen));
    std::thread([&events] {
        EXPECT_NO_THROW(events.log("warning", "from a reader thread"));
    }).join();
    ASSERT_TRUE(events.write_failure().has_value());
    EXPECT_THROW(events.done("finished"), Error);
    EXPECT_NO_THROW(events.done("failed"));
}

} // namespace
} // namespace tuneframe::core
