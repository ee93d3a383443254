#pragma once

#include "engine/core/event_emitter.h"
#include "engine/core/event_observer.h"
#include "engine/tensorboard/event_file_writer.h"
#include "engine/tensorboard/smoothed_loss.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>

namespace tuneframe::tensorboard {

// Turns a training run's protocol events into TensorBoard's: `step` into scalars (loss raw and
// smoothed, learning rate, grad norm, step time, throughput, memory per rank), `memory` phases
// into scalars at the last step, each `validation` video into a picture of its first, middle
// and last frames, and the job into the hparams plugin's session, ended by `done`. Everything
// comes from the events, so the trainer knows nothing of TensorBoard. A write that fails (a
// full disk) is an Io error naming the file and the free space, which stops the run as a failed
// write of events.jsonl does (EventObserver); anything else that goes wrong (a video it cannot
// read back for its picture) costs only TensorBoard's copy, with one line on stderr.
class TensorBoardSink : public core::EventObserver {
public:
    // `folder`: the run's tensorboard/; `job`: the run's job as JSON, for the hparams.
    TensorBoardSink(const std::filesystem::path& folder, const nlohmann::json& job);

    void on_event(protocol::EventType type, const nlohmann::json& event) override;

    const std::filesystem::path& path() const { return path_; }

    // Attaches a sink for the run of `job_file` (its folder's tensorboard/) to `events`. A job
    // it cannot read is a warning `log` event, not a failed run (the trainer reports a bad job
    // itself); a folder or file it cannot create throws the Io error.
    static void attach(core::EventEmitter& events, const std::filesystem::path& job_file);

private:
    void handle(protocol::EventType type, const nlohmann::json& event);
    void on_step(const nlohmann::json& event);
    void on_memory(const nlohmann::json& event);
    void on_validation(const nlohmann::json& event);
    void on_done(const nlohmann::json& event);
    // The first step this process reports restarts the session there (see add_session_start).
    void start_session_at(std::int64_t step);

    std::optional<EventFileWriter> writer_;
    std::filesystem::path path_;
    SmoothedLoss smoothed_loss_;
    std::int64_t last_step_ = 0;
    bool session_started_ = false;
};

} // namespace tuneframe::tensorboard
