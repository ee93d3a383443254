// The studio's commands between steps, through a real control socket: a pause holds the run
// until resume or stop and still takes checkpoint and validate meanwhile.
#include "engine/train/command_channel.h"
#include "engine/train/run_command_handler.h"
#include "tests/support/test_paths.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace tuneframe::train {
namespace {

namespace fs = std::filesystem;

class RunCommands : public ::testing::Test {
protected:
    RunCommands()
        : socket_(dir_ / "control.sock")
        , channel_(socket_, [this](const std::string&) { ++warnings_; })
        , handler_(
              &channel_, nullptr,
              {[this] { done_.push_back("checkpoint"); }, [this] { done_.push_back("validate"); },
               [this](const std::string&, const std::string& message) { logs_.push_back(message); },
               [this](std::string_view state) {
                   done_.push_back(std::string(state));
               }}) {}

    // Sends the commands, then a malformed line: once its warning is back, the channel has
    // queued every command before it (one connection is read in order).
    void send(const std::vector<std::string>& commands) {
        std::string lines;
        for (const std::string& command : commands) {
            lines += "{\"v\":1,\"cmd\":\"" + command + "\"}\n";
        }
        lines += "not json\n";
        const int client = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, socket_.c_str(), sizeof address.sun_path - 1);
        ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        ASSERT_EQ(::write(client, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
        ::close(client);
        const int expected = ++sent_;
        for (int i = 0; i < 500 && warnings_ < expected; ++i) {
            ::usleep(10000);
        }
        ASSERT_EQ(warnings_, expected);
    }

    test::TemporaryDirectory dir_;
    fs::path socket_;
    // Counted on the channel's reader thread.
    std::atomic<int> warnings_{0};
    int sent_ = 0;
    CommandChannel channel_;
    std::vector<std::string> done_;
    std::vector<std::string> logs_;
    RunCommandHandler handler_;
};

TEST_F(RunCommands, NothingQueuedLetsTheStepRun) {
    EXPECT_FALSE(handler_.handle(3));
    EXPECT_TRUE(done_.empty());
}

TEST_F(RunCommands, APauseHoldsTheRunAndStillTakesCheckpointsUntilResumed) {
    send({"pause", "checkpoint", "validate", "pause", "resume", "checkpoint"});
    EXPECT_FALSE(handler_.handle(7));
    EXPECT_EQ(done_, (std::vector<std::string>{"paused", "checkpoint", "validate", "training",
                                               "checkpoint"}));
    ASSERT_EQ(logs_.size(), 2u);
    EXPECT_EQ(logs_[0], "Paused at step 7.");
    EXPECT_EQ(logs_[1], "Resumed.");
}

TEST_F(RunCommands, AStopEndsTheRunPausedOrNot) {
    send({"pause", "stop"});
    EXPECT_TRUE(handler_.handle(2));
    EXPECT_EQ(done_, (std::vector<std::string>{"paused"}));
    send({"checkpoint", "stop", "validate"});
    EXPECT_TRUE(handler_.handle(2));
    EXPECT_EQ(done_, (std::vector<std::string>{"paused", "checkpoint"}));
    // What came after the stop is still queued for whoever asks next.
    EXPECT_FALSE(handler_.handle(2));
    EXPECT_EQ(done_.back(), "validate");
}

} // namespace
} // namespace tuneframe::train
