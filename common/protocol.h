#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

// The engine -> studio event protocol and the studio -> engine commands (docs/protocol.md).
// Both sides compile this file, so a type or field name can only change in one place.
namespace tuneframe::protocol {

inline constexpr int kVersion = 1;

enum class EventType {
    Invalid,
    Hello,
    Phase,
    Progress,
    Step,
    Memory,
    Validation,
    Checkpoint,
    Log,
    Error,
    Done,
    State,
};

enum class CommandType {
    Invalid,
    Stop,
    Checkpoint,
    Validate,
    Pause,
    Resume,
};

std::string_view to_string(EventType type);
EventType event_type_from_string(std::string_view name);
std::string_view to_string(CommandType type);
CommandType command_type_from_string(std::string_view name);

// {"v":1,"type":...} with the fields of `body` merged in.
nlohmann::json make_event(EventType type, nlohmann::json body = nlohmann::json::object());
nlohmann::json make_command(CommandType type);

struct ParsedMessage {
    int version = 0;
    std::string kind; // the "type" of an event or the "cmd" of a command
    nlohmann::json body;
};

// Parses one JSON line. Returns nullopt and sets `error` for malformed lines, lines without a
// version or kind, and versions newer than this build understands.
std::optional<ParsedMessage> parse_line(std::string_view line, const char* kind_field,
                                        std::string* error);

} // namespace tuneframe::protocol
