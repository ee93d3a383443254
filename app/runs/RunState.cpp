#include "app/runs/RunState.h"

#include <array>
#include <utility>

namespace {

constexpr std::array<std::pair<RunState, const char*>, 9> kNames = {{
    {RunState::Queued, "queued"},
    {RunState::Preparing, "preparing"},
    {RunState::Training, "training"},
    {RunState::Validating, "validating"},
    {RunState::Paused, "paused"},
    {RunState::Stopping, "stopping"},
    {RunState::Stopped, "stopped"},
    {RunState::Finished, "finished"},
    {RunState::Failed, "failed"},
}};

} // namespace

QString runStateName(RunState state) {
    for (const auto& [value, name] : kNames) {
        if (value == state) {
            return QString::fromLatin1(name);
        }
    }
    return QString();
}

RunState runStateFromName(const QString& name) {
    for (const auto& [value, text] : kNames) {
        if (name == QLatin1String(text)) {
            return value;
        }
    }
    return RunState::None;
}

bool isActiveRunState(RunState state) {
    switch (state) {
    case RunState::Preparing:
    case RunState::Training:
    case RunState::Validating:
    case RunState::Paused:
    case RunState::Stopping:
        return true;
    default:
        return false;
    }
}

bool isEndedRunState(RunState state) {
    return state == RunState::Stopped || state == RunState::Finished || state == RunState::Failed;
}

QString RunStateText::display(RunState state) {
    switch (state) {
    case RunState::None:
        return QString();
    case RunState::Queued:
        return tr("Queued");
    case RunState::Preparing:
        return tr("Preparing");
    case RunState::Training:
        return tr("Training");
    case RunState::Validating:
        return tr("Validating");
    case RunState::Paused:
        return tr("Paused");
    case RunState::Stopping:
        return tr("Stopping");
    case RunState::Stopped:
        return tr("Stopped");
    case RunState::Finished:
        return tr("Finished");
    case RunState::Failed:
        return tr("Failed");
    }
    return QString();
}
