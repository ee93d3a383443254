#pragma once

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

// The tuneframe-engine binary the build registered (TUNEFRAME_ENGINE).
std::string engine_path();

} // namespace tuneframe::test
