#pragma once

#include "engine/tensorboard/record_writer.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace tuneframe::tensorboard {

enum class SessionStatus { Unknown, Success, Failure, Running };

// One TensorBoard event file: `events.out.tfevents.<unix seconds>.<host>.<pid>` in `folder`,
// the name TensorBoard's own writers use, so several processes of one run (a resume) never
// share a file and TensorBoard reads them in the order they were started. Every method writes
// one Event record stamped with the current time.
class EventFileWriter {
public:
    // Creates `folder` when missing and the file with its "brain.Event:2" first record.
    explicit EventFileWriter(const std::filesystem::path& folder);

    // Scalars of one step, in one record.
    void add_scalars(std::int64_t step, const std::vector<std::pair<std::string, float>>& values);
    // `png` is a whole PNG file of an RGB picture; `description` shows under the image.
    void add_image(std::int64_t step, const std::string& tag, const std::string& png, int width,
                   int height, const std::string& description);
    // The session (re)starts at `step`: TensorBoard forgets what earlier files logged from it on.
    void add_session_start(std::int64_t step);
    // The hparams plugin's session start: `hparams` maps names to numbers, strings or booleans.
    void add_hparams(const nlohmann::json& hparams);
    void add_session_end(SessionStatus status);

    const std::filesystem::path& path() const { return records_.path(); }

private:
    RecordWriter records_;
};

} // namespace tuneframe::tensorboard
