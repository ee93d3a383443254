#pragma once

#include "common/protocol.h"
#include "engine/core/error.h"
#include "engine/core/event_observer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace tuneframe::core {

// Writes protocol events as JSON Lines to a file descriptor (stdout by default) and, once a run
// folder is known, appends the same lines to its events.jsonl so a restarted studio can catch
// up. A closed stdout (the studio went away) is not an error: the run keeps logging to the
// file. Safe to call from several threads; each event is one write of one whole line.
class EventEmitter {
public:
    explicit EventEmitter(int output_fd = 1);
    ~EventEmitter();
    EventEmitter(const EventEmitter&) = delete;
    EventEmitter& operator=(const EventEmitter&) = delete;

    // Appends every later event to `events_jsonl` (created if missing).
    void attach_log(const std::filesystem::path& events_jsonl);
    // Shows every later event to `observer`, which lives as long as the emitter, so it also
    // sees the `error` and `done` the CLI writes after the command has returned.
    void add_observer(std::unique_ptr<EventObserver> observer);

    void emit(protocol::EventType type, nlohmann::json body = nlohmann::json::object());

    void hello(const nlohmann::json& runtime);
    void phase(std::string_view name);
    void progress(std::int64_t done, std::int64_t total, std::string_view unit);
    void log(std::string_view level, std::string_view message);
    void error(const Error& error);
    void done(std::string_view status, nlohmann::json summary = nlohmann::json::object());

    bool output_broken() const { return output_broken_; }

private:
    void write_line(int fd, const std::string& line, bool* broken);

    std::mutex mutex_;
    int output_fd_;
    int log_fd_ = -1;
    bool output_broken_ = false;
    bool log_broken_ = false;
    std::vector<std::unique_ptr<EventObserver>> observers_;
};

} // namespace tuneframe::core
