#include "common/protocol.h"
#include "engine/core/event_emitter.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <csignal>
#include <fcntl.h>
#include <memory>
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

} // namespace
} // namespace tuneframe::core
