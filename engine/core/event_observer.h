#pragma once

#include "common/protocol.h"

#include <nlohmann/json.hpp>

namespace tuneframe::core {

// Something that follows a run through its protocol events as the EventEmitter writes them
// (TensorBoard's event files do). Called on the emitting thread, one event at a time and in
// order; it must not emit events itself, and a failure of its own must not end the run.
class EventObserver {
public:
    virtual ~EventObserver() = default;
    // `event` is the whole object written: "v", "type" and the body's fields.
    virtual void on_event(protocol::EventType type, const nlohmann::json& event) noexcept = 0;
};

} // namespace tuneframe::core
