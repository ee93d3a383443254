#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuneframe::cli {

// The arguments of one subcommand, consumed as the command reads them: `--name VALUE`,
// `--name=VALUE`, flags and positionals. finish() rejects whatever was not read, so a typo in
// an option name is an error instead of a silently ignored setting.
class Arguments {
public:
    Arguments(std::string command, std::string usage, std::vector<std::string> arguments);

    bool help_requested() const { return help_; }
    const std::string& usage() const { return usage_; }

    bool flag(std::string_view name);
    std::optional<std::string> option(std::string_view name);
    std::string required_option(std::string_view name);
    double number_option(std::string_view name, double fallback);
    std::string positional(std::string_view what);
    // Everything after a `--` (another command line, as `launch` takes), consumed as it is.
    std::vector<std::string> after_separator();
    void finish();

    [[noreturn]] void fail(const std::string& message) const;

private:
    std::string command_;
    std::string usage_;
    std::vector<std::string> arguments_;
    std::vector<bool> used_;
    bool help_ = false;
};

} // namespace tuneframe::cli
