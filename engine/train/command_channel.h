#pragma once

#include "common/protocol.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tuneframe::train {

// The studio's commands (`{"v":1,"cmd":"stop"}` ...) from stdin and from the run's control
// socket, so a studio that restarted can still steer a run it did not start. Lines are read on
// background threads and queued; the trainer polls between steps. SIGTERM and SIGINT queue a
// `stop`, so a killed-from-the-terminal run also checkpoints before it exits.
class CommandChannel {
public:
    using Warn = std::function<void(const std::string&)>;

    // `socket_path` empty: stdin only. `warn` reports malformed lines (as `log` events).
    CommandChannel(const std::filesystem::path& socket_path, Warn warn);
    ~CommandChannel();
    CommandChannel(const CommandChannel&) = delete;
    CommandChannel& operator=(const CommandChannel&) = delete;

    std::optional<protocol::CommandType> poll();
    // Blocks until a command arrives (used while paused).
    protocol::CommandType wait();
    // Waits at most `timeout`: a paused distributed run wakes up to tell the other ranks it is
    // still alive, so their collectives do not time out.
    std::optional<protocol::CommandType> wait_for(std::chrono::milliseconds timeout);

private:
    void push(protocol::CommandType command);
    void handle_line(const std::string& line);
    void read_stdin();
    void serve_socket();
    void watch_signals();

    Warn warn_;
    std::filesystem::path socket_path_;
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::deque<protocol::CommandType> queue_;
    std::atomic<bool> closing_{false};
    int listen_fd_ = -1;
    int wake_pipe_[2] = {-1, -1};
    int signal_pipe_[2] = {-1, -1};
    struct sigaction previous_term_ {};
    struct sigaction previous_int_ {};
    std::thread stdin_thread_;
    std::thread socket_thread_;
    std::thread signal_thread_;
};

} // namespace tuneframe::train
