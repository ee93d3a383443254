#pragma once

#include "common/protocol.h"
#include "engine/core/error.h"
#include "engine/core/event_observer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

namespace tuneframe::core {

// Writes protocol events as JSON Lines to a file descriptor (stdout by default) and, once a run
// folder is known, appends the same lines to its events.jsonl so a restarted studio can catch
// up. A closed stdout (the studio went away) is not an error: the run keeps logging to the
// file. Safe to call from several threads; each event is one write of one whole line.
//
// events.jsonl is the run's record, so a write to it that fails (a full disk) stops the run:
// the failure is kept, and the next event emitted on the thread that made the emitter (the
// command's) throws it as an Io error naming the file and the free space, once. The CLI then
// writes `error` and `done`, for which the log keeps kLogReserveBytes allocated past its end
// (fallocate, where the file system can), so the pair still fits on a disk that has just
// filled; running out of that room is itself the failure. The same holds for an observer's
// file (TensorBoard's): its write error stops the run too.
class EventEmitter {
public:
    // Room kept past the end of events.jsonl for the events that end a run.
    static constexpr std::int64_t kLogReserveBytes = 64 * 1024;

    explicit EventEmitter(int output_fd = 1);
    ~EventEmitter();
    EventEmitter(const EventEmitter&) = delete;
    EventEmitter& operator=(const EventEmitter&) = delete;

    // Appends every later event to `events_jsonl` (created if missing). A file that ends inside
    // a line (a process killed, or cut off by a full disk, while writing it) gets a newline
    // first, so that torn line never swallows the next event.
    void attach_log(const std::filesystem::path& events_jsonl);
    // Shows every later event to `observer`, which lives as long as the emitter, so it also
    // sees the `error` and `done` the CLI writes after the command has returned. An observer
    // whose on_event throws an Error sees no more events, and that Error stops the run as a
    // failed write of events.jsonl does.
    void add_observer(std::unique_ptr<EventObserver> observer);

    // Writes the event, then throws the write failure not yet thrown (see the class comment)
    // when called on the emitter's own thread and not while an exception is unwinding.
    void emit(protocol::EventType type, nlohmann::json body = nlohmann::json::object());

    void hello(const nlohmann::json& runtime);
    void phase(std::string_view name);
    void progress(std::int64_t done, std::int64_t total, std::string_view unit);
    void log(std::string_view level, std::string_view message);
    // Never throws: it reports the failure that ends the command.
    void error(const Error& error);
    // A command that ends well first throws a write failure not yet thrown, so the run does not
    // claim success over a log with a hole in it; a "failed" one never throws.
    void done(std::string_view status, nlohmann::json summary = nlohmann::json::object());

    bool output_broken() const { return output_broken_; }
    // The first write of the run's files that failed (events.jsonl, an observer's), if any.
    std::optional<Error> write_failure() const;

private:
    void write_event(protocol::EventType type, const nlohmann::json& event);
    void write_line(int fd, const std::string& line, bool* broken);
    void append_to_log(const std::string& line);
    void keep_log_reserve();
    void record_failure(const Error& failure);
    void throw_pending_failure();

    mutable std::mutex mutex_;
    const std::thread::id owner_ = std::this_thread::get_id();
    int output_fd_;
    int log_fd_ = -1;
    std::filesystem::path log_path_;
    bool output_broken_ = false;
    // events.jsonl ends inside a line: the next write starts with a newline.
    bool log_mid_line_ = false;
    // Whether the log's file system takes fallocate's KEEP_SIZE (tmpfs, ext4, XFS, Btrfs do).
    bool log_reserves_ = true;
    std::optional<Error> failure_;
    bool failure_thrown_ = false;
    std::vector<std::unique_ptr<EventObserver>> observers_;
};

} // namespace tuneframe::core
