#include "engine/train/run_command_handler.h"

#include "engine/dist/communicator.h"
#include "engine/dist/distributed_context.h"
#include "engine/train/command_channel.h"

#include <chrono>
#include <utility>

namespace tuneframe::train {

RunCommandHandler::RunCommandHandler(CommandChannel* commands, dist::DistributedContext* dist,
                                     Actions actions)
    : commands_(commands)
    , dist_(dist)
    , actions_(std::move(actions)) {}

std::optional<protocol::CommandType> RunCommandHandler::next(bool wait) {
    std::optional<protocol::CommandType> command;
    if (commands_ && (!dist_ || dist_->is_main())) {
        if (!wait) {
            command = commands_->poll();
        } else if (dist_) {
            command = commands_->wait_for(std::chrono::seconds(5));
        } else {
            command = commands_->wait();
        }
    }
    if (!dist_) {
        return command;
    }
    const std::int64_t shared = dist::broadcast_value(
        dist_->world(), command ? static_cast<std::int64_t>(*command) : -1, 0);
    if (shared < 0) {
        return std::nullopt;
    }
    return static_cast<protocol::CommandType>(shared);
}

bool RunCommandHandler::handle(std::int64_t step) {
    if (!commands_ && !dist_) {
        return false;
    }
    while (const std::optional<protocol::CommandType> command = next(false)) {
        if (*command == protocol::CommandType::Stop ||
            (*command == protocol::CommandType::Pause && pause(step))) {
            return true;
        }
        act(*command);
    }
    return false;
}

bool RunCommandHandler::pause(std::int64_t step) {
    actions_.log("info", "Paused at step " + std::to_string(step) + ".");
    actions_.state("paused");
    for (;;) {
        const std::optional<protocol::CommandType> command = next(true);
        if (!command) {
            continue;
        }
        if (*command == protocol::CommandType::Stop) {
            return true;
        }
        if (*command == protocol::CommandType::Resume) {
            actions_.log("info", "Resumed.");
            actions_.state("training");
            return false;
        }
        act(*command);
    }
}

void RunCommandHandler::act(protocol::CommandType command) {
    if (command == protocol::CommandType::Checkpoint) {
        actions_.checkpoint();
    } else if (command == protocol::CommandType::Validate) {
        actions_.validate();
    }
}

} // namespace tuneframe::train
