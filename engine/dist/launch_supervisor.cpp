#include "engine/dist/launch_supervisor.h"

#include "common/protocol.h"
#include "engine/core/error.h"
#include "engine/dist/cuda_visible_devices.h"

#include <algorithm>
#include <arpa/inet.h>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <chrono>
#include <optional>

namespace tuneframe::dist {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// SIGTERM/SIGINT/SIGCHLD reach the poll loop through a pipe; the handler only writes a byte.
int g_signal_pipe = -1;

extern "C" void note_signal(int signal_number) {
    const char byte = static_cast<char>(signal_number);
    [[maybe_unused]] const ssize_t ignored = ::write(g_signal_pipe, &byte, 1);
}

class SignalRoute {
public:
    SignalRoute() {
        if (::pipe2(pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
            throw core::io_error("create a pipe for signals", "launch", errno);
        }
        g_signal_pipe = pipe_[1];
        struct sigaction action {};
        action.sa_handler = note_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        for (int signal_number : {SIGTERM, SIGINT, SIGCHLD}) {
            struct sigaction previous {};
            ::sigaction(signal_number, &action, &previous);
            previous_.emplace_back(signal_number, previous);
        }
    }
    ~SignalRoute() {
        for (const auto& [signal_number, previous] : previous_) {
            ::sigaction(signal_number, &previous, nullptr);
        }
        g_signal_pipe = -1;
        ::close(pipe_[0]);
        ::close(pipe_[1]);
    }
    SignalRoute(const SignalRoute&) = delete;
    SignalRoute& operator=(const SignalRoute&) = delete;

    int fd() const { return pipe_[0]; }
    // The signals that arrived since the last call.
    std::vector<int> drain() {
        std::vector<int> got;
        char buffer[64];
        ssize_t n = 0;
        while ((n = ::read(pipe_[0], buffer, sizeof buffer)) > 0) {
            got.insert(got.end(), buffer, buffer + n);
        }
        return got;
    }

private:
    int pipe_[2] = {-1, -1};
    std::vector<std::pair<int, struct sigaction>> previous_;
};

struct Worker {
    int rank = 0;
    pid_t pid = -1;
    int out = -1; // its stdout
    int in = -1;  // its stdin (rank 0 only)
    std::string pending;
    bool exited = false;
    int status = 0;
    std::string last_error_code;
};

std::string describe_exit(int status) {
    if (WIFSIGNALED(status)) {
        const int signal_number = WTERMSIG(status);
        return "was killed by signal " + std::to_string(signal_number) + " (" +
               ::strsignal(signal_number) + ")";
    }
    return "exited with code " + std::to_string(WEXITSTATUS(status));
}

bool failed(int status) {
    return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

void write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n <= 0) {
            return; // the worker is gone; its exit is handled elsewhere
        }
        done += static_cast<std::size_t>(n);
    }
}

class Supervision {
public:
    Supervision(const LaunchOptions& options, core::EventEmitter& events)
        : options_(options)
        , events_(events) {}

    int run() {
        start_workers();
        std::string stdin_pending;
        bool stdin_open = true;
        while (!all_exited()) {
            std::vector<pollfd> fds;
            fds.push_back({signals_.fd(), POLLIN, 0});
            fds.push_back({stdin_open ? 0 : -1, POLLIN, 0});
            for (const Worker& worker : workers_) {
                fds.push_back({worker.out, POLLIN, 0});
            }
            ::poll(fds.data(), fds.size(), 200);
            handle_signals();
            if (stdin_open && (fds[1].revents & (POLLIN | POLLHUP))) {
                stdin_open = pass_stdin(stdin_pending);
            }
            for (std::size_t i = 0; i < workers_.size(); ++i) {
                if (fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)) {
                    read_output(workers_[i]);
                }
            }
            reap();
            if (failure_ && Clock::now() > kill_at_) {
                signal_all(SIGKILL);
            }
        }
        for (Worker& worker : workers_) {
            read_output(worker); // whatever is left after the exit
        }
        return finish();
    }

private:
    void start_workers() {
        const int local =
            options_.cpu_ranks > 0 ? options_.cpu_ranks : static_cast<int>(options_.gpus.size());
        const int world = local * options_.nnodes;
        const char* inherited = std::getenv("CUDA_VISIBLE_DEVICES");
        const std::string visible = worker_visible_devices(
            options_.gpus, inherited ? std::optional<std::string>(inherited) : std::nullopt);
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        for (int i = 0; i < local; ++i) {
            Worker worker;
            worker.rank = options_.node_rank * local + i;
            int out_pipe[2];
            int in_pipe[2] = {-1, -1};
            if (::pipe2(out_pipe, O_CLOEXEC) != 0 || (i == 0 && ::pipe2(in_pipe, O_CLOEXEC) != 0)) {
                throw core::io_error("create a pipe for a worker", "launch", errno);
            }
            const std::vector<std::pair<std::string, std::string>> environment = {
                {"RANK", std::to_string(worker.rank)},
                {"LOCAL_RANK", std::to_string(i)},
                {"WORLD_SIZE", std::to_string(world)},
                {"LOCAL_WORLD_SIZE", std::to_string(local)},
                {"GROUP_RANK", std::to_string(options_.node_rank)},
                {"MASTER_ADDR", options_.master_addr},
                {"MASTER_PORT", std::to_string(options_.master_port)},
                {"TUNEFRAME_LAUNCH", "1"},
                // CPU ranks: no GPU, and a fair share of the cores each.
                {"CUDA_VISIBLE_DEVICES", options_.cpu_ranks > 0 ? "" : visible},
                {"OMP_NUM_THREADS",
                 std::to_string(std::max(1u, cores / static_cast<unsigned>(local)))}};
            std::vector<std::string> argv_text = {options_.engine};
            argv_text.insert(argv_text.end(), options_.command.begin(), options_.command.end());
            std::vector<char*> argv;
            for (std::string& text : argv_text) {
                argv.push_back(text.data());
            }
            argv.push_back(nullptr);
            const pid_t pid = ::fork();
            if (pid < 0) {
                throw core::io_error("start a worker", options_.engine, errno);
            }
            if (pid == 0) {
                // Own process group: a Ctrl-C reaches the supervisor, which turns it into a stop.
                // A supervisor that dies outright takes its workers with it (events.jsonl is its).
                ::setpgid(0, 0);
                ::prctl(PR_SET_PDEATHSIG, SIGTERM);
                ::dup2(out_pipe[1], 1);
                if (i == 0) {
                    ::dup2(in_pipe[0], 0);
                } else {
                    const int null = ::open("/dev/null", O_RDONLY);
                    ::dup2(null, 0);
                }
                for (const auto& [name, value] : environment) {
                    if (name == "OMP_NUM_THREADS" && std::getenv("OMP_NUM_THREADS")) {
                        continue;
                    }
                    if (name == "CUDA_VISIBLE_DEVICES" && options_.cpu_ranks == 0 &&
                        visible.empty()) {
                        continue;
                    }
                    ::setenv(name.c_str(), value.c_str(), 1);
                }
                ::execv(argv[0], argv.data());
                ::_exit(127);
            }
            ::close(out_pipe[1]);
            worker.pid = pid;
            worker.out = out_pipe[0];
            if (i == 0) {
                ::close(in_pipe[0]);
                worker.in = in_pipe[1];
            }
            workers_.push_back(worker);
        }
        nlohmann::json pids = nlohmann::json::array();
        for (const Worker& worker : workers_) {
            pids.push_back({{"rank", worker.rank}, {"pid", worker.pid}});
        }
        events_.emit(
            protocol::EventType::Log,
            {{"level", "info"},
             {"message", "Started " + std::to_string(local) + " workers (ranks " +
                             std::to_string(workers_.front().rank) + "-" +
                             std::to_string(workers_.back().rank) + " of " + std::to_string(world) +
                             ") meeting at " + options_.master_addr + ":" +
                             std::to_string(options_.master_port) + "."},
             {"workers", pids}});
    }

    bool all_exited() const {
        for (const Worker& worker : workers_) {
            if (!worker.exited) {
                return false;
            }
        }
        return true;
    }

    void signal_all(int signal_number) {
        for (const Worker& worker : workers_) {
            if (!worker.exited) {
                ::kill(worker.pid, signal_number);
            }
        }
    }

    Worker* rank_zero() {
        for (Worker& worker : workers_) {
            if (worker.rank == 0 && !worker.exited && worker.in >= 0) {
                return &worker;
            }
        }
        return nullptr;
    }

    void handle_signals() {
        for (int signal_number : signals_.drain()) {
            if (signal_number == SIGCHLD) {
                continue; // reap() looks after every pass
            }
            if (!stop_sent_ && rank_zero()) {
                stop_sent_ = true;
                events_.log("info", "Stopping: rank 0 checkpoints and every rank exits.");
                write_all(rank_zero()->in, "{\"v\":1,\"cmd\":\"stop\"}\n");
            } else {
                signal_all(SIGTERM);
            }
        }
    }

    // Returns false at the end of stdin.
    bool pass_stdin(std::string& pending) {
        char buffer[4096];
        const ssize_t n = ::read(0, buffer, sizeof buffer);
        if (n <= 0) {
            return false;
        }
        pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t newline;
        while ((newline = pending.find('\n')) != std::string::npos) {
            if (Worker* zero = rank_zero()) {
                write_all(zero->in, pending.substr(0, newline + 1));
            }
            pending.erase(0, newline + 1);
        }
        return true;
    }

    void read_output(Worker& worker) {
        if (worker.out < 0) {
            return;
        }
        char buffer[65536];
        const ssize_t n = ::read(worker.out, buffer, sizeof buffer);
        if (n <= 0) {
            ::close(worker.out);
            worker.out = -1;
            if (!worker.pending.empty()) {
                handle_line(worker, worker.pending);
                worker.pending.clear();
            }
            return;
        }
        worker.pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t newline;
        while ((newline = worker.pending.find('\n')) != std::string::npos) {
            const std::string line = worker.pending.substr(0, newline);
            worker.pending.erase(0, newline + 1);
            handle_line(worker, line);
        }
    }

    void handle_line(Worker& worker, const std::string& line) {
        json event = json::parse(line, nullptr, false);
        if (event.is_discarded() || !event.is_object() || !event.contains("type")) {
            events_.log("warning", "rank " + std::to_string(worker.rank) + ": " + line);
            return;
        }
        const std::string type = event.value("type", "");
        const protocol::EventType kind = protocol::event_type_from_string(type);
        event.erase("v");
        event.erase("type");
        if (kind == protocol::EventType::Error) {
            worker.last_error_code = event.value("code", "");
        }
        if (kind == protocol::EventType::Hello) {
            return; // the supervisor said hello for the run
        }
        if (worker.rank != 0) {
            if (kind == protocol::EventType::Log || kind == protocol::EventType::Error) {
                event["rank"] = worker.rank;
                events_.emit(kind, event);
            }
            return;
        }
        if (kind == protocol::EventType::Done) {
            done_ = event;
            return;
        }
        if (kind != protocol::EventType::Invalid) {
            events_.emit(kind, event);
        }
    }

    void reap() {
        std::vector<Worker*> ended;
        for (Worker& worker : workers_) {
            if (worker.exited) {
                continue;
            }
            int status = 0;
            if (::waitpid(worker.pid, &status, WNOHANG) == worker.pid) {
                worker.exited = true;
                worker.status = status;
                if (worker.in >= 0) {
                    ::close(worker.in);
                    worker.in = -1;
                }
                if (failed(status)) {
                    ended.push_back(&worker);
                }
            }
        }
        if (ended.empty() || failure_) {
            return;
        }
        // The cause is the rank that died of its own accord: one killed by a signal or failing
        // for a reason of its own beats one that only lost its peers.
        Worker* cause = ended.front();
        for (Worker* worker : ended) {
            read_output(*worker);
            if (WIFSIGNALED(worker->status) ||
                (worker->last_error_code != "distributed" &&
                 cause->last_error_code == "distributed" && !WIFSIGNALED(cause->status))) {
                cause = worker;
                if (WIFSIGNALED(worker->status)) {
                    break;
                }
            }
        }
        failure_ = cause->rank;
        failure_text_ = "Rank " + std::to_string(cause->rank) + " (pid " +
                        std::to_string(cause->pid) + ") " + describe_exit(cause->status) +
                        (cause->last_error_code.empty() || cause->last_error_code == "distributed"
                             ? ""
                             : " after a '" + cause->last_error_code + "' error");
        signal_all(SIGTERM);
        kill_at_ = Clock::now() + std::chrono::milliseconds(
                                      static_cast<std::int64_t>(options_.stop_grace_s * 1000));
    }

    // Every ending is an event pair the studio can rely on: a failure's `error`, then `done`.
    int finish() {
        if (failure_) {
            events_.error(core::Error(
                core::ErrorCode::Distributed, failure_text_ + "; the other ranks were stopped.",
                "Read that rank's error above (and engine-stderr.log); the run resumes from its "
                "last checkpoint, on any number of ranks."));
            events_.done("failed", {{"code", "distributed"}});
            return 1;
        }
        const bool any_failed = std::any_of(workers_.begin(), workers_.end(),
                                            [](const Worker& w) { return failed(w.status); });
        if (any_failed) {
            const std::string code =
                done_ ? done_->value("summary", json::object()).value("code", "distributed")
                      : "distributed";
            events_.done("failed", {{"code", code}});
            return 1;
        }
        if (done_) {
            events_.done(done_->value("status", "finished"),
                         done_->value("summary", json::object()));
        }
        return 0;
    }

    const LaunchOptions& options_;
    core::EventEmitter& events_;
    SignalRoute signals_;
    std::vector<Worker> workers_;
    std::optional<int> failure_;
    std::string failure_text_;
    Clock::time_point kill_at_;
    std::optional<json> done_;
    bool stop_sent_ = false;
};

} // namespace

int free_local_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        const int error = errno;
        if (fd >= 0) {
            ::close(fd);
        }
        throw core::io_error("find a free port for the rendezvous", "127.0.0.1", error);
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

LaunchSupervisor::LaunchSupervisor(LaunchOptions options, core::EventEmitter& events)
    : options_(std::move(options))
    , events_(events) {}

int LaunchSupervisor::run() {
    if (options_.master_port == 0) {
        options_.master_port = free_local_port();
    }
    Supervision supervision(options_, events_);
    return supervision.run();
}

} // namespace tuneframe::dist
