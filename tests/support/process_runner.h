#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tuneframe::test {

struct ProcessResult {
    int exit_code = -1; // -1 when killed by a signal or the time limit
    std::string out;
    std::string err;
    bool timed_out = false;
};

// Runs a program to completion, capturing stdout and stderr; kills it after `timeout_seconds`.
ProcessResult run_process(const std::vector<std::string>& argv, double timeout_seconds = 120);

// A program the test talks to while it runs: lines to its stdin, lines from its stdout (stderr
// goes to the test's own). The destructor kills it if it is still running.
class ChildProcess {
public:
    explicit ChildProcess(const std::vector<std::string>& argv);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // The next stdout line, or nullopt at end of output or after `timeout_seconds`.
    std::optional<std::string> read_line(double timeout_seconds = 120);
    void write_line(const std::string& line);
    void close_stdin();
    void kill(int signal);
    // Waits for the exit; -1 when a signal ended it.
    int wait();
    int pid() const { return pid_; }

private:
    int pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    std::string pending_;
    bool waited_ = false;
    int exit_code_ = -1;
};

// The tuneframe-engine binary the build registered (TUNEFRAME_ENGINE).
std::string engine_path();

} // namespace tuneframe::test
