// The JSON Lines protocol: any line as an event (the studio reads "type") and as a command (the
// engine reads "cmd"). parse_line reports what it refuses and never throws.
#include "common/protocol.h"
#include "tests/fuzz/fuzz_support.h"

using namespace tuneframe;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view line = fuzz::as_text(data, size);
    std::string error;
    if (const auto event = protocol::parse_line(line, "type", &error)) {
        if (event->version < 1 || event->version > protocol::kVersion ||
            event->body.at("v") != event->version) {
            __builtin_trap();
        }
        protocol::to_string(protocol::event_type_from_string(event->kind));
        event->body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    if (const auto command = protocol::parse_line(line, "cmd", &error)) {
        if (command->version < 1 || command->version > protocol::kVersion ||
            command->body.at("v") != command->version) {
            __builtin_trap();
        }
        protocol::to_string(protocol::command_type_from_string(command->kind));
    }
    return 0;
}
