#include "engine/train/command_channel.h"

#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <vector>

namespace tuneframe::train {
namespace {

// Reads lines from `fd` until EOF or until `stop_fd` becomes readable.
void read_lines(int fd, int stop_fd, const std::function<void(const std::string&)>& on_line) {
    std::string pending;
    char buffer[4096];
    for (;;) {
        pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        if (fds[1].revents != 0) {
            return;
        }
        const ssize_t count = ::read(fd, buffer, sizeof buffer);
        if (count <= 0) {
            if (count < 0 && errno == EINTR) {
                continue;
            }
            return;
        }
        pending.append(buffer, static_cast<std::size_t>(count));
        for (std::size_t end; (end = pending.find('\n')) != std::string::npos;) {
            const std::string line = pending.substr(0, end);
            pending.erase(0, end + 1);
            if (line.find_first_not_of(" \t\r") != std::string::npos) {
                on_line(line);
            }
        }
    }
}

// A signal handler can only reach the channel through a global: it writes one byte into this
// pipe (async-signal-safe), and the watcher thread turns the byte into a `stop`.
int g_signal_pipe_write = -1;

extern "C" void on_stop_signal(int) {
    if (g_signal_pipe_write >= 0) {
        const char byte = 1;
        [[maybe_unused]] const ssize_t written = ::write(g_signal_pipe_write, &byte, 1);
    }
}

// Calls on_byte for each byte read from `fd` until `stop_fd` becomes readable.
void read_bytes(int fd, int stop_fd, const std::function<void()>& on_byte) {
    for (;;) {
        pollfd fds[2] = {{fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return;
        }
        if (fds[1].revents != 0) {
            return;
        }
        char byte;
        if (::read(fd, &byte, 1) == 1) {
            on_byte();
        }
    }
}

} // namespace

CommandChannel::CommandChannel(const std::filesystem::path& socket_path, Warn warn)
    : warn_(std::move(warn))
    , socket_path_(socket_path) {
    if (::pipe(wake_pipe_) != 0) {
        wake_pipe_[0] = wake_pipe_[1] = -1;
    }
    if (::pipe(signal_pipe_) == 0) {
        g_signal_pipe_write = signal_pipe_[1];
        struct sigaction action {};
        action.sa_handler = on_stop_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        sigaction(SIGTERM, &action, &previous_term_);
        sigaction(SIGINT, &action, &previous_int_);
        signal_thread_ = std::thread([this] { watch_signals(); });
    }
    stdin_thread_ = std::thread([this] { read_stdin(); });
    if (!socket_path_.empty()) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const std::string path = socket_path_.string();
        if (path.size() < sizeof address.sun_path) {
            std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
            ::unlink(path.c_str()); // a stale socket from a run that was killed
            listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (listen_fd_ >= 0 &&
                (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
                 ::listen(listen_fd_, 4) != 0)) {
                ::close(listen_fd_);
                listen_fd_ = -1;
            }
        }
        if (listen_fd_ < 0) {
            warn_("The control socket '" + path +
                  "' could not be opened; commands are read from stdin only.");
        } else {
            socket_thread_ = std::thread([this] { serve_socket(); });
        }
    }
}

CommandChannel::~CommandChannel() {
    closing_ = true;
    if (wake_pipe_[1] >= 0) {
        const char byte = 0;
        [[maybe_unused]] const ssize_t written = ::write(wake_pipe_[1], &byte, 1);
    }
    if (signal_thread_.joinable()) {
        signal_thread_.join();
        sigaction(SIGTERM, &previous_term_, nullptr);
        sigaction(SIGINT, &previous_int_, nullptr);
        g_signal_pipe_write = -1;
    }
    if (stdin_thread_.joinable()) {
        stdin_thread_.join();
    }
    if (socket_thread_.joinable()) {
        socket_thread_.join();
    }
    if (listen_fd_ >= 0) {
        ::close(listen_fd_);
        ::unlink(socket_path_.c_str());
    }
    for (int fd : {wake_pipe_[0], wake_pipe_[1], signal_pipe_[0], signal_pipe_[1]}) {
        if (fd >= 0) {
            ::close(fd);
        }
    }
}

void CommandChannel::push(protocol::CommandType command) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queue_.push_back(command);
    }
    arrived_.notify_all();
}

void CommandChannel::handle_line(const std::string& line) {
    std::string error;
    const auto message = protocol::parse_line(line, "cmd", &error);
    if (!message) {
        warn_("Ignored a command line that is not a protocol command (" + error + "): " + line);
        return;
    }
    const protocol::CommandType command = protocol::command_type_from_string(message->kind);
    if (command == protocol::CommandType::Invalid) {
        warn_("Ignored the unknown command '" + message->kind +
              "'; known: stop, checkpoint, validate, pause, resume.");
        return;
    }
    push(command);
}

void CommandChannel::read_stdin() {
    read_lines(STDIN_FILENO, wake_pipe_[0], [this](const std::string& line) { handle_line(line); });
}

void CommandChannel::serve_socket() {
    std::vector<std::thread> clients;
    while (!closing_) {
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) {
            break;
        }
        if (fds[1].revents != 0) {
            break;
        }
        if (fds[0].revents & POLLIN) {
            const int client = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client >= 0) {
                clients.emplace_back([this, client] {
                    read_lines(client, wake_pipe_[0],
                               [this](const std::string& line) { handle_line(line); });
                    ::close(client);
                });
            }
        }
    }
    for (std::thread& client : clients) {
        client.join();
    }
}

void CommandChannel::watch_signals() {
    read_bytes(signal_pipe_[0], wake_pipe_[0], [this] { push(protocol::CommandType::Stop); });
}

std::optional<protocol::CommandType> CommandChannel::poll() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (queue_.empty()) {
        return std::nullopt;
    }
    const protocol::CommandType command = queue_.front();
    queue_.pop_front();
    return command;
}

protocol::CommandType CommandChannel::wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    arrived_.wait(lock, [this] { return !queue_.empty(); });
    const protocol::CommandType command = queue_.front();
    queue_.pop_front();
    return command;
}

std::optional<protocol::CommandType> CommandChannel::wait_for(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!arrived_.wait_for(lock, timeout, [this] { return !queue_.empty(); })) {
        return std::nullopt;
    }
    const protocol::CommandType command = queue_.front();
    queue_.pop_front();
    return command;
}

} // namespace tuneframe::train
