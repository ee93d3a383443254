#pragma once

#include "common/protocol.h"

#include <nlohmann/json.hpp>

namespace tuneframe::core {

// Something that follows a run through its protocol events as the EventEmitter writes them
// (TensorBoard's event files do). Called on the emitting thread, one event at a time and in
// order; it must not emit events itself. It throws only core::Error, and only when a file of
// the run could not be written (a full disk): that stops the run, as a failed write of
// events.jsonl does, and the observer sees no more events. Any other trouble of its own it
// keeps to itself, so that it never ends a run.
class EventObserver {
public:
    virtual ~EventObserver() = default;
    // `event` is the whole object written: "v", "type" and the body's fields.
    virtual void on_event(protocol::EventType type, const nlohmann::json& event) = 0;
};

} // namespace tuneframe::core
