#pragma once

#include "common/protocol.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tuneframe::dist {
class DistributedContext;
}

namespace tuneframe::train {

class CommandChannel;

// What a run does between steps with the studio's commands: stop, write a checkpoint, validate,
// or pause until resumed (still taking checkpoint, validate and stop while paused). Rank 0
// reads each command and broadcasts it, so every rank acts on the same one at the same step.
class RunCommandHandler {
public:
    // What the commands make the run do; `state` tells the studio "paused" or "training" (it
    // follows pause and resume from these, never from the log's wording).
    struct Actions {
        std::function<void()> checkpoint;
        std::function<void()> validate;
        std::function<void(const std::string& level, const std::string& message)> log;
        std::function<void(std::string_view state)> state;
    };

    // Either may be null: a run without a channel still takes part in rank 0's broadcasts.
    RunCommandHandler(CommandChannel* commands, dist::DistributedContext* dist, Actions actions);

    // Handles every queued command before step `step`; true when the run should stop.
    bool handle(std::int64_t step);

private:
    // The next command, the same on every rank. `wait`: block for one (paused); a distributed
    // rank 0 then wakes every few seconds so the others' broadcast does not time out during a
    // long pause.
    std::optional<protocol::CommandType> next(bool wait);
    // Paused until resume (false) or stop (true).
    bool pause(std::int64_t step);
    // A checkpoint or a validation; any other command (a resume while running, a second pause)
    // changes nothing.
    void act(protocol::CommandType command);

    CommandChannel* commands_;
    dist::DistributedContext* dist_;
    Actions actions_;
};

} // namespace tuneframe::train
