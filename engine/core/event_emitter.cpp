#include "engine/core/event_emitter.h"

#include "common/free_space.h"

#include <cerrno>
#include <exception>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tuneframe::core {
namespace {

// Writes all of `text`, retrying after signals: 0, or the errno of the write that failed with
// `written` the bytes that got through before it.
int write_all(int fd, const std::string& text, std::size_t* written) {
    const char* data = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t count = ::write(fd, data, left);
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        data += count;
        left -= static_cast<std::size_t>(count);
        *written += static_cast<std::size_t>(count);
    }
    return 0;
}

// Whether the file's last byte is not a newline (an empty file ends no line).
bool ends_mid_line(int fd) {
    struct stat status {};
    char last = '\n';
    return ::fstat(fd, &status) == 0 && status.st_size > 0 &&
           ::pread(fd, &last, 1, status.st_size - 1) == 1 && last != '\n';
}

} // namespace

EventEmitter::EventEmitter(int output_fd)
    : output_fd_(output_fd) {}

EventEmitter::~EventEmitter() {
    // The reserve past the end stays allocated: giving it back means truncating, which would cut
    // the lines of another process appending to the same file.
    if (log_fd_ >= 0) {
        ::close(log_fd_);
    }
}

void EventEmitter::attach_log(const std::filesystem::path& events_jsonl) {
    // Read access too, to see how the file ends.
    int fd = ::open(events_jsonl.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw io_error("Cannot open the event log", events_jsonl.string(), errno);
    }
    const bool mid_line = ends_mid_line(fd);
    std::lock_guard lock(mutex_);
    if (log_fd_ >= 0) {
        ::close(log_fd_);
    }
    log_fd_ = fd;
    log_path_ = events_jsonl;
    log_mid_line_ = mid_line;
    log_reserves_ = true;
    keep_log_reserve();
}

void EventEmitter::add_observer(std::unique_ptr<EventObserver> observer) {
    std::lock_guard lock(mutex_);
    observers_.push_back(std::move(observer));
}

std::optional<Error> EventEmitter::write_failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
}

void EventEmitter::emit(protocol::EventType type, nlohmann::json body) {
    write_event(type, protocol::make_event(type, std::move(body)));
    throw_pending_failure();
}

void EventEmitter::write_event(protocol::EventType type, const nlohmann::json& event) {
    // Messages may carry file names in any encoding; never let one abort the engine.
    std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    std::lock_guard lock(mutex_);
    write_line(output_fd_, line, &output_broken_);
    if (log_fd_ >= 0) {
        append_to_log(line);
    }
    // Under the same lock, so observers see events in the order the log has them.
    for (auto observer = observers_.begin(); observer != observers_.end();) {
        try {
            (*observer)->on_event(type, event);
            ++observer;
        } catch (const Error& failure) {
            record_failure(failure);
            observer = observers_.erase(observer);
        }
    }
}

void EventEmitter::write_line(int fd, const std::string& line, bool* broken) {
    if (*broken) {
        return;
    }
    std::size_t written = 0;
    if (write_all(fd, line, &written) != 0) {
        *broken = true; // EPIPE once the reader is gone; the other sink carries on
    }
}

void EventEmitter::append_to_log(const std::string& line) {
    // Every write is tried, even after one failed: space may have come back (a checkpoint that
    // failed removes its files), and the run's last events matter most.
    const std::string text = log_mid_line_ ? "\n" + line : line;
    std::size_t written = 0;
    const int failed = write_all(log_fd_, text, &written);
    if (written > 0) {
        log_mid_line_ = text[written - 1] != '\n';
    }
    if (failed != 0) {
        record_failure(io_error("Cannot write the event log", log_path_.string(), failed));
        return;
    }
    keep_log_reserve();
}

void EventEmitter::keep_log_reserve() {
    struct stat status {};
    if (!log_reserves_ || ::fstat(log_fd_, &status) != 0) {
        return;
    }
    // Blocks already reserved are kept as they are, so this allocates at most one line's worth.
    if (::fallocate(log_fd_, FALLOC_FL_KEEP_SIZE, status.st_size, kLogReserveBytes) == 0) {
        return;
    }
    const int error_number = errno;
    if (common::is_out_of_space(error_number)) {
        record_failure(
            io_error("Cannot keep writing the event log", log_path_.string(), error_number));
    } else {
        log_reserves_ = false; // EOPNOTSUPP (NFS, ZFS, FUSE): a failed write is reported as such
    }
}

void EventEmitter::record_failure(const Error& failure) {
    if (!failure_) {
        failure_ = failure;
    }
}

void EventEmitter::throw_pending_failure() {
    std::unique_lock lock(mutex_);
    if (!failure_ || failure_thrown_ || std::this_thread::get_id() != owner_ ||
        std::uncaught_exceptions() > 0) {
        return;
    }
    failure_thrown_ = true;
    const Error failure = *failure_;
    lock.unlock();
    throw failure;
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
    write_event(protocol::EventType::Error, protocol::make_event(protocol::EventType::Error, body));
}

void EventEmitter::done(std::string_view status, nlohmann::json summary) {
    if (status != "failed") {
        throw_pending_failure();
    }
    write_event(protocol::EventType::Done,
                protocol::make_event(protocol::EventType::Done,
                                     {{"status", status}, {"summary", std::move(summary)}}));
}

} // namespace tuneframe::core
