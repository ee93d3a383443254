#include "common/protocol.h"

#include <array>
#include <cstdint>
#include <utility>

namespace tuneframe::protocol {
namespace {

constexpr std::array<std::pair<EventType, std::string_view>, 11> kEventNames{{
    {EventType::Hello, "hello"},
    {EventType::Phase, "phase"},
    {EventType::Progress, "progress"},
    {EventType::Step, "step"},
    {EventType::Memory, "memory"},
    {EventType::Validation, "validation"},
    {EventType::Checkpoint, "checkpoint"},
    {EventType::Log, "log"},
    {EventType::Error, "error"},
    {EventType::Done, "done"},
    {EventType::State, "state"},
}};

constexpr std::array<std::pair<CommandType, std::string_view>, 5> kCommandNames{{
    {CommandType::Stop, "stop"},
    {CommandType::Checkpoint, "checkpoint"},
    {CommandType::Validate, "validate"},
    {CommandType::Pause, "pause"},
    {CommandType::Resume, "resume"},
}};

template <typename Enum, std::size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
                         Enum value) {
    for (const auto& [entry, name] : table) {
        if (entry == value) {
            return name;
        }
    }
    return "invalid";
}

template <typename Enum, std::size_t N>
Enum value_of(const std::array<std::pair<Enum, std::string_view>, N>& table,
              std::string_view name) {
    for (const auto& [entry, entry_name] : table) {
        if (entry_name == name) {
            return entry;
        }
    }
    return Enum::Invalid;
}

} // namespace

std::string_view to_string(EventType type) {
    return name_of(kEventNames, type);
}
EventType event_type_from_string(std::string_view name) {
    return value_of(kEventNames, name);
}
std::string_view to_string(CommandType type) {
    return name_of(kCommandNames, type);
}
CommandType command_type_from_string(std::string_view name) {
    return value_of(kCommandNames, name);
}

nlohmann::json make_event(EventType type, nlohmann::json body) {
    nlohmann::json event = {{"v", kVersion}, {"type", std::string(to_string(type))}};
    if (body.is_object()) {
        for (auto& [key, value] : body.items()) {
            if (key != "v" && key != "type") {
                event[key] = std::move(value);
            }
        }
    }
    return event;
}

nlohmann::json make_command(CommandType type) {
    return {{"v", kVersion}, {"cmd", std::string(to_string(type))}};
}

std::optional<ParsedMessage> parse_line(std::string_view line, const char* kind_field,
                                        std::string* error) {
    auto fail = [error](std::string message) -> std::optional<ParsedMessage> {
        if (error) {
            *error = std::move(message);
        }
        return std::nullopt;
    };
    nlohmann::json body = nlohmann::json::parse(line, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        return fail("not a JSON object");
    }
    auto version = body.find("v");
    if (version == body.end() || !version->is_number_integer()) {
        return fail("missing protocol version \"v\"");
    }
    // Compared in 64 bits: get<int>() cut 4294967297 down to version 1. An unsigned value
    // past INT64_MAX reads as negative, so it is refused too.
    const auto number = version->get<std::int64_t>();
    if (number > kVersion || number < 1) {
        return fail("protocol version " + version->dump() +
                    " is not supported (this build speaks " + std::to_string(kVersion) + ")");
    }
    auto kind = body.find(kind_field);
    if (kind == body.end() || !kind->is_string()) {
        return fail(std::string("missing \"") + kind_field + "\"");
    }
    ParsedMessage message;
    message.version = static_cast<int>(number);
    message.kind = kind->get<std::string>();
    message.body = std::move(body);
    return message;
}

} // namespace tuneframe::protocol
