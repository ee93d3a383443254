#include "common/run_queue.h"

#include "common/training_job.h"

namespace tuneframe::common {
namespace {

template <typename T>
T field(const nlohmann::json& object, const char* name, const std::string& origin, T fallback) {
    if (!object.contains(name)) {
        return fallback;
    }
    try {
        return object.at(name).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw JobError(origin + ": '" + name + "' has the wrong type.", name,
                       "Delete the file; the studio writes it again from the project's queue.");
    }
}

std::vector<nlohmann::json> entries(const nlohmann::json& json, const char* name,
                                    const std::string& origin) {
    if (!json.contains(name)) {
        return {};
    }
    if (!json.at(name).is_array()) {
        throw JobError(origin + ": '" + name + "' must be a list.", name,
                       "Delete the file; the studio writes it again from the project's queue.");
    }
    std::vector<nlohmann::json> items;
    for (const nlohmann::json& item : json.at(name)) {
        if (!item.is_object()) {
            throw JobError(origin + ": every entry of '" + name + "' must be an object.", name,
                           "Delete the file; the studio writes it again from the project's "
                           "queue.");
        }
        items.push_back(item);
    }
    return items;
}

} // namespace

RunQueue RunQueue::from_json(const nlohmann::json& json, const std::string& origin) {
    if (!json.is_object()) {
        throw JobError(origin + " is not a run queue (a JSON object).", "",
                       "Delete the file; the studio writes it again from the project's queue.");
    }
    const auto version = field<std::int64_t>(json, "v", origin, 1);
    if (version != 1) {
        throw JobError(origin + " is version " + std::to_string(version) +
                           " of the queue; this build reads version 1.",
                       "v", "Use the Tuneframe build that wrote it.");
    }
    RunQueue queue;
    queue.running = field<bool>(json, "running", origin, false);
    queue.continue_past_failure = field<bool>(json, "continue_past_failure", origin, false);
    for (const nlohmann::json& item : entries(json, "runs", origin)) {
        queue.runs.push_back({field<std::int64_t>(item, "id", origin, 0),
                              field<std::string>(item, "folder", origin, "")});
    }
    for (const nlohmann::json& item : entries(json, "started", origin)) {
        StartedRun run{field<std::int64_t>(item, "id", origin, 0),
                       field<std::string>(item, "folder", origin, ""),
                       field<std::int64_t>(item, "pid", origin, 0), std::nullopt};
        if (item.contains("exit_code") && !item.at("exit_code").is_null()) {
            run.exit_code = field<int>(item, "exit_code", origin, 0);
        }
        queue.started.push_back(run);
    }
    return queue;
}

nlohmann::json RunQueue::to_json() const {
    nlohmann::json waiting = nlohmann::json::array();
    for (const QueuedRun& run : runs) {
        waiting.push_back({{"id", run.id}, {"folder", run.folder}});
    }
    nlohmann::json taken = nlohmann::json::array();
    for (const StartedRun& run : started) {
        nlohmann::json entry = {{"id", run.id}, {"folder", run.folder}, {"pid", run.pid}};
        entry["exit_code"] = run.exit_code ? nlohmann::json(*run.exit_code) : nlohmann::json();
        taken.push_back(entry);
    }
    return {{"v", 1},
            {"running", running},
            {"continue_past_failure", continue_past_failure},
            {"runs", waiting},
            {"started", taken}};
}

StartedRun* RunQueue::find_started(std::int64_t id) {
    for (StartedRun& run : started) {
        if (run.id == id) {
            return &run;
        }
    }
    return nullptr;
}

std::string run_queue_lock_path(const std::string& queue_file) {
    return queue_file + ".lock";
}

std::string run_queue_runner_lock_path(const std::string& queue_file) {
    return queue_file + ".runner";
}

} // namespace tuneframe::common
