#include "engine/cli/arguments.h"

#include "engine/core/error.h"

namespace tuneframe::cli {

Arguments::Arguments(std::string command, std::string usage, std::vector<std::string> arguments)
    : command_(std::move(command))
    , usage_(std::move(usage))
    , arguments_(std::move(arguments))
    , used_(arguments_.size(), false) {
    for (std::size_t i = 0; i < arguments_.size() && arguments_[i] != "--"; ++i) {
        if (arguments_[i] == "--help" || arguments_[i] == "-h") {
            help_ = true;
            used_[i] = true;
        }
    }
}

void Arguments::fail(const std::string& message) const {
    throw core::Error(core::ErrorCode::Usage, command_ + ": " + message, "Usage: " + usage_);
}

bool Arguments::flag(std::string_view name) {
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
        if (!used_[i] && arguments_[i] == name) {
            used_[i] = true;
            return true;
        }
    }
    return false;
}

std::optional<std::string> Arguments::option(std::string_view name) {
    const std::string prefix = std::string(name) + "=";
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
        if (used_[i]) {
            continue;
        }
        if (arguments_[i] == name) {
            if (i + 1 >= arguments_.size()) {
                fail(std::string(name) + " needs a value.");
            }
            used_[i] = used_[i + 1] = true;
            return arguments_[i + 1];
        }
        if (arguments_[i].rfind(prefix, 0) == 0) {
            used_[i] = true;
            return arguments_[i].substr(prefix.size());
        }
    }
    return std::nullopt;
}

std::string Arguments::required_option(std::string_view name) {
    std::optional<std::string> value = option(name);
    if (!value) {
        fail(std::string(name) + " is required.");
    }
    return *value;
}

double Arguments::number_option(std::string_view name, double fallback) {
    std::optional<std::string> value = option(name);
    if (!value) {
        return fallback;
    }
    try {
        std::size_t consumed = 0;
        double number = std::stod(*value, &consumed);
        if (consumed == value->size()) {
            return number;
        }
    } catch (const std::exception&) {
    }
    fail(std::string(name) + " must be a number, not '" + *value + "'.");
}

std::string Arguments::positional(std::string_view what) {
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
        if (!used_[i] && (arguments_[i].empty() || arguments_[i][0] != '-')) {
            used_[i] = true;
            return arguments_[i];
        }
    }
    fail("missing " + std::string(what) + ".");
}

std::vector<std::string> Arguments::after_separator() {
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
        if (!used_[i] && arguments_[i] == "--") {
            for (std::size_t j = i; j < arguments_.size(); ++j) {
                used_[j] = true;
            }
            rest.assign(arguments_.begin() + static_cast<std::ptrdiff_t>(i) + 1, arguments_.end());
            break;
        }
    }
    return rest;
}

void Arguments::finish() {
    for (std::size_t i = 0; i < arguments_.size(); ++i) {
        if (!used_[i]) {
            fail("unknown argument '" + arguments_[i] + "'.");
        }
    }
}

} // namespace tuneframe::cli
