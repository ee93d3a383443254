#include "engine/tensorboard/tensorboard_sink.h"

#include "engine/core/job_file.h"
#include "engine/tensorboard/hparams.h"
#include "engine/tensorboard/png_image.h"
#if TUNEFRAME_HAVE_MEDIA
#include "engine/tensorboard/validation_frames.h"
#endif

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::tensorboard {
namespace {

using nlohmann::json;
using Scalars = std::vector<std::pair<std::string, float>>;

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
// Validation pictures: rows per frame, enough to judge motion without megabytes per step.
constexpr int kValidationFrameHeight = 240;

void add_number(Scalars& scalars, const std::string& tag, const json& body, const char* field,
                double scale = 1.0) {
    const auto it = body.find(field);
    if (it != body.end() && it->is_number()) {
        scalars.emplace_back(tag, static_cast<float>(it->get<double>() / scale));
    }
}

// `mem` entries as `<prefix>/rank<r>/<field>_gib`.
void add_memory(Scalars& scalars, const std::string& prefix, const json& event) {
    const auto mem = event.find("mem");
    if (mem == event.end() || !mem->is_array()) {
        return;
    }
    for (const json& rank : *mem) {
        const std::string base = prefix + "/rank" + std::to_string(rank.value("rank", 0)) + "/";
        for (const char* field : {"allocated", "reserved", "peak"}) {
            add_number(scalars, base + field + "_gib", rank, field, kBytesPerGiB);
        }
    }
}

SessionStatus status_of(const std::string& done_status) {
    if (done_status == "finished" || done_status == "ok") {
        return SessionStatus::Success;
    }
    if (done_status == "failed") {
        return SessionStatus::Failure;
    }
    return SessionStatus::Unknown; // stopped: it may be continued later
}

} // namespace

TensorBoardSink::TensorBoardSink(const std::filesystem::path& folder, const json& job) {
    writer_.emplace(folder);
    path_ = writer_->path();
    json hparams = flatten_hparams(job);
    hparams.erase("v");
    writer_->add_hparams(hparams);
}

void TensorBoardSink::attach(core::EventEmitter& events, const std::filesystem::path& job_file) {
    json job;
    try {
        job = core::read_job_file(job_file).to_json();
    } catch (const std::exception& error) {
        events.log("warning",
                   std::string("No TensorBoard event file for this run: ") + error.what());
        return;
    }
    events.add_observer(
        std::make_unique<TensorBoardSink>(job_file.parent_path() / "tensorboard", job));
}

void TensorBoardSink::on_event(protocol::EventType type, const json& event) {
    if (!writer_) {
        return;
    }
    try {
        handle(type, event);
    } catch (const std::exception& error) {
        writer_.reset();
        const auto* failure = dynamic_cast<const core::Error*>(&error);
        if (failure != nullptr && failure->code() == core::ErrorCode::Io) {
            throw; // the run's record is short of these events: the emitter stops the run
        }
        std::cerr << "warning: TensorBoard events stop here (" << path_.string()
                  << "): " << error.what() << '\n';
    }
}

void TensorBoardSink::handle(protocol::EventType type, const json& event) {
    switch (type) {
    case protocol::EventType::Step:
        on_step(event);
        break;
    case protocol::EventType::Memory:
        on_memory(event);
        break;
    case protocol::EventType::Validation:
        on_validation(event);
        break;
    case protocol::EventType::Done:
        on_done(event);
        break;
    default:
        break;
    }
}

void TensorBoardSink::start_session_at(std::int64_t step) {
    if (!session_started_) {
        session_started_ = true;
        writer_->add_session_start(step);
    }
}

void TensorBoardSink::on_step(const json& event) {
    const std::int64_t step = event.value("step", last_step_ + 1);
    start_session_at(step);
    last_step_ = step;
    Scalars scalars;
    const auto loss = event.find("loss");
    if (loss != event.end() && loss->is_number()) {
        scalars.emplace_back("loss/raw", loss->get<float>());
        scalars.emplace_back("loss/smoothed",
                             static_cast<float>(smoothed_loss_.add(loss->get<double>())));
    }
    add_number(scalars, "learning_rate", event, "lr");
    add_number(scalars, "grad_norm", event, "grad_norm");
    add_number(scalars, "step_time_s", event, "step_time_s");
    add_number(scalars, "tokens_per_s", event, "tokens_per_s");
    add_number(scalars, "samples_per_s", event, "samples_per_s");
    add_memory(scalars, "memory", event);
    writer_->add_scalars(step, scalars);
}

void TensorBoardSink::on_memory(const json& event) {
    Scalars scalars;
    add_memory(scalars, "memory_phase/" + event.value("phase", std::string("unknown")), event);
    writer_->add_scalars(last_step_, scalars);
}

void TensorBoardSink::on_validation(const json& event) {
    const std::int64_t step = event.value("step", last_step_);
    start_session_at(step);
#if TUNEFRAME_HAVE_MEDIA
    const std::string video = event.value("video", std::string());
    RgbImage strip;
    std::string png;
    try {
        strip = validation_strip(video, kValidationFrameHeight);
        png = strip.width > 0 ? encode_png(strip) : std::string();
    } catch (const std::exception& error) {
        // One unreadable video costs its picture, not the run's other events.
        std::cerr << "warning: no TensorBoard picture of " << video << ": " << error.what() << '\n';
        return;
    }
    if (!png.empty()) {
        writer_->add_image(step,
                           "validation/prompt_" + std::to_string(event.value("prompt_index", 0)),
                           png, strip.width, strip.height, event.value("prompt", std::string()));
    }
#endif
}

void TensorBoardSink::on_done(const json& event) {
    writer_->add_session_end(status_of(event.value("status", std::string())));
}

} // namespace tuneframe::tensorboard
