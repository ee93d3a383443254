#include "engine/core/event_emitter.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace tuneframe::core {

EventEmitter::EventEmitter(int output_fd)
    : output_fd_(output_fd) {}

EventEmitter::~EventEmitter() {
    if (log_fd_ >= 0) {
        ::close(log_fd_);
    }
}

void EventEmitter::attach_log(const std::filesystem::path& events_jsonl) {
    int fd = ::open(events_jsonl.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw io_error("Cannot open the event log", events_jsonl.string(), errno);
    }
    std::lock_guard lock(mutex_);
    if (log_fd_ >= 0) {
        ::close(log_fd_);
    }
    log_fd_ = fd;
    log_broken_ = false;
}

void EventEmitter::add_observer(std::unique_ptr<EventObserver> observer) {
    std::lock_guard lock(mutex_);
    observers_.push_back(std::move(observer));
}

void EventEmitter::emit(protocol::EventType type, nlohmann::json body) {
    const nlohmann::json event = protocol::make_event(type, std::move(body));
    // Messages may carry file names in any encoding; never let one abort the engine.
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::lock_guard lock(mutex_);
    write_line(output_fd_, line, &output_broken_);
    if (log_fd_ >= 0) {
        write_line(log_fd_, line, &log_broken_);
    }
    // Under the same lock, so observers see events in the order the log has them.
    for (const std::unique_ptr<EventObserver>& observer : observers_) {
        observer->on_event(type, event);
    }
}

void EventEmitter::write_line(int fd, const std::string& line, bool* broken) {
    if (*broken) {
        return;
    }
    const char* data = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        ssize_t written = ::write(fd, data, left);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            *broken = true; // EPIPE once the reader is gone; the other sink carries on
            return;
        }
        data += written;
        left -= static_cast<std::size_t>(written);
    }
}

void EventEmitter::hello(const nlohmann::json& runtime) {
    nlohmann::json body = runtime;
    body["engine_version"] = TUNEFRAME_VERSION;
    body["protocol"] = protocol::kVersion;
    emit(protocol::EventType::Hello, std::move(body));
}

void EventEmitter::phase(std::string_view name) {
    emit(protocol::EventType::Phase, {{"phase", name}});
}

void EventEmitter::progress(std::int64_t done, std::int64_t total, std::string_view unit) {
    emit(protocol::EventType::Progress, {{"done", done}, {"total", total}, {"unit", unit}});
}

void EventEmitter::log(std::string_view level, std::string_view message) {
    emit(protocol::EventType::Log, {{"level", level}, {"message", message}});
}

void EventEmitter::error(const Error& error) {
    nlohmann::json body = {{"code", error_code_name(error.code())}, {"message", error.what()}};
    if (!error.hint().empty()) {
        body["hint"] = error.hint();
    }
    if (!error.field().empty()) {
        body["field"] = error.field();
    }
    emit(protocol::EventType::Error, std::move(body));
}

void EventEmitter::done(std::string_view status, nlohmann::json summary) {
    emit(protocol::EventType::Done, {{"status", status}, {"summary", std::move(summary)}});
}

} // namespace tuneframe::core
