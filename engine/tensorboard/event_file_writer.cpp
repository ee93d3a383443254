#include "engine/tensorboard/event_file_writer.h"

#include "engine/core/error.h"
#include "engine/tensorboard/tensorboard_event.pb.h"
#include "engine/tensorboard/tensorboard_hparams.pb.h"

#include <chrono>
#include <climits>
#include <unistd.h>

namespace tuneframe::tensorboard {
namespace {

namespace fs = std::filesystem;
namespace pb = tuneframe::tensorboard::proto;

constexpr const char* kFileVersion = "brain.Event:2";
// TensorBoard's hparams plugin: its name, the only data version it reads, and its tags.
constexpr const char* kHParamsPlugin = "hparams";
constexpr int kHParamsVersion = 0;
constexpr const char* kSessionStartTag = "_hparams_/session_start_info";
constexpr const char* kSessionEndTag = "_hparams_/session_end_info";
constexpr int kColorspaceRgb = 3;

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::string host_name() {
    char name[HOST_NAME_MAX + 1] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') {
        return "localhost";
    }
    return name;
}

fs::path new_event_file(const fs::path& folder) {
    std::error_code error;
    fs::create_directories(folder, error);
    if (error) {
        throw core::io_error("Cannot create the TensorBoard folder", folder.string(),
                             error.value());
    }
    const auto seconds = static_cast<long long>(now_seconds());
    const fs::path path = folder / ("events.out.tfevents." + std::to_string(seconds) + "." +
                                    host_name() + "." + std::to_string(::getpid()));
    // A second writer of the same process within the same second gets a numbered name.
    fs::path free = path;
    for (int n = 1; fs::exists(free); ++n) {
        free = path.string() + "." + std::to_string(n);
    }
    return free;
}

pb::Event stamped(std::int64_t step) {
    pb::Event event;
    event.set_wall_time(now_seconds());
    event.set_step(step);
    return event;
}

// Plugin summaries carry their data in the metadata; the value itself is an empty float
// vector, the smallest valid tensor, as TensorBoard's own hparams writer does.
void set_null_tensor(pb::Summary::Value* value) {
    pb::TensorProto* tensor = value->mutable_tensor();
    tensor->set_dtype(pb::DT_FLOAT);
    tensor->mutable_tensor_shape()->add_dim()->set_size(0);
}

void add_hparams_value(pb::Event& event, const char* tag,
                       const pb::hparams::HParamsPluginData& data) {
    pb::Summary::Value* value = event.mutable_summary()->add_value();
    value->set_tag(tag);
    pb::SummaryMetadata::PluginData* plugin = value->mutable_metadata()->mutable_plugin_data();
    plugin->set_plugin_name(kHParamsPlugin);
    plugin->set_content(data.SerializeAsString());
    set_null_tensor(value);
}

pb::hparams::Status status_of(SessionStatus status) {
    switch (status) {
    case SessionStatus::Success:
        return pb::hparams::STATUS_SUCCESS;
    case SessionStatus::Failure:
        return pb::hparams::STATUS_FAILURE;
    case SessionStatus::Running:
        return pb::hparams::STATUS_RUNNING;
    case SessionStatus::Unknown:
        break;
    }
    return pb::hparams::STATUS_UNKNOWN;
}

} // namespace

EventFileWriter::EventFileWriter(const std::filesystem::path& folder)
    : records_(new_event_file(folder)) {
    pb::Event event = stamped(0);
    event.set_file_version(kFileVersion);
    records_.write(event.SerializeAsString());
}

void EventFileWriter::add_scalars(std::int64_t step,
                                  const std::vector<std::pair<std::string, float>>& values) {
    if (values.empty()) {
        return;
    }
    pb::Event event = stamped(step);
    for (const auto& [tag, number] : values) {
        pb::Summary::Value* value = event.mutable_summary()->add_value();
        value->set_tag(tag);
        value->set_simple_value(number);
    }
    records_.write(event.SerializeAsString());
}

void EventFileWriter::add_image(std::int64_t step, const std::string& tag, const std::string& png,
                                int width, int height, const std::string& description) {
    pb::Event event = stamped(step);
    pb::Summary::Value* value = event.mutable_summary()->add_value();
    value->set_tag(tag);
    if (!description.empty()) {
        value->mutable_metadata()->set_summary_description(description);
    }
    pb::Summary::Image* image = value->mutable_image();
    image->set_width(width);
    image->set_height(height);
    image->set_colorspace(kColorspaceRgb);
    image->set_encoded_image_string(png);
    records_.write(event.SerializeAsString());
}

void EventFileWriter::add_session_start(std::int64_t step) {
    pb::Event event = stamped(step);
    event.mutable_session_log()->set_status(pb::SessionLog::START);
    records_.write(event.SerializeAsString());
}

void EventFileWriter::add_hparams(const nlohmann::json& values) {
    pb::hparams::HParamsPluginData data;
    data.set_version(kHParamsVersion);
    pb::hparams::SessionStartInfo* start = data.mutable_session_start_info();
    start->set_start_time_secs(now_seconds());
    for (const auto& [name, item] : values.items()) {
        google::protobuf::Value& value = (*start->mutable_hparams())[name];
        if (item.is_boolean()) {
            value.set_bool_value(item.get<bool>());
        } else if (item.is_number()) {
            value.set_number_value(item.get<double>());
        } else if (item.is_string()) {
            value.set_string_value(item.get<std::string>());
        } else {
            value.set_string_value(item.dump());
        }
    }
    pb::Event event = stamped(0);
    add_hparams_value(event, kSessionStartTag, data);
    records_.write(event.SerializeAsString());
}

void EventFileWriter::add_session_end(SessionStatus status) {
    pb::hparams::HParamsPluginData data;
    data.set_version(kHParamsVersion);
    pb::hparams::SessionEndInfo* end = data.mutable_session_end_info();
    end->set_status(status_of(status));
    end->set_end_time_secs(now_seconds());
    pb::Event event = stamped(0);
    add_hparams_value(event, kSessionEndTag, data);
    records_.write(event.SerializeAsString());
}

} // namespace tuneframe::tensorboard
