#include "engine/data/prepared_index.h"

#include "engine/core/atomic_file.h"
#include "engine/core/error.h"
#include "engine/data/sha256.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <fstream>
#include <sstream>

namespace tuneframe::data {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// One line's fields, with errors that name the file, the line and the field.
class LineFields {
public:
    LineFields(const json& object, const std::string& origin, std::int64_t line)
        : object_(object)
        , where_(origin + ", line " + std::to_string(line)) {}

    [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
        throw core::Error(core::ErrorCode::BadInput,
                          where_ + (field.empty() ? "" : ", field \"" + field + "\"") + ": " +
                              problem + ".",
                          "Run `tuneframe-engine prepare` on the job again to rewrite the file.");
    }

    std::string text(const char* key, bool required = true) const {
        auto it = object_.find(key);
        if (it == object_.end() || it->is_null()) {
            if (required) {
                fail(key, "is missing");
            }
            return {};
        }
        if (!it->is_string()) {
            fail(key, "must be a string");
        }
        return it->get<std::string>();
    }

    std::int64_t integer(const char* key) const {
        auto it = object_.find(key);
        if (it == object_.end() || !it->is_number_integer()) {
            fail(key, "must be an integer");
        }
        return it->get<std::int64_t>();
    }

private:
    const json& object_;
    std::string where_;
};

std::string json_line(const ordered_json& line) {
    return line.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

} // namespace

std::string PreparedSample::bucket() const {
    return std::to_string(frames) + "x" + std::to_string(height) + "x" + std::to_string(width);
}

PreparedIndex PreparedIndex::parse(std::string_view text, const std::string& origin) {
    PreparedIndex index;
    bool have_dataset = false;
    std::int64_t line_number = 0;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        ++line_number;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            continue;
        }
        json object = json::parse(line.begin(), line.end(), nullptr, false);
        LineFields fields(object, origin, line_number);
        if (!object.is_object()) {
            fields.fail("", "is not a JSON object");
        }
        const std::int64_t version = fields.integer("v");
        if (version > kPreparedIndexVersion) {
            throw core::Error(core::ErrorCode::BadInput,
                              origin + ", line " + std::to_string(line_number) +
                                  ": written by a newer engine (prepared.jsonl version " +
                                  std::to_string(version) + "); this engine reads version " +
                                  std::to_string(kPreparedIndexVersion) + ".",
                              "Update tuneframe-engine, or run `prepare` again with this one.");
        }
        const std::string kind = fields.text("kind");
        if (kind == "dataset") {
            PreparedDataset& d = index.dataset;
            d.manifest = fields.text("manifest");
            d.cache_dir = fields.text("cache_dir");
            d.model = fields.text("model");
            d.task = fields.text("task");
            d.dtype = fields.text("dtype");
            d.text_length = fields.integer("text_length");
            have_dataset = true;
        } else if (kind == "sample") {
            PreparedSample s;
            s.line = fields.integer("line");
            s.path = fields.text("path");
            s.caption = fields.text("caption");
            s.frames = static_cast<int>(fields.integer("frames"));
            s.height = static_cast<int>(fields.integer("height"));
            s.width = static_cast<int>(fields.integer("width"));
            s.latent = fields.text("latent");
            s.prompt = fields.text("prompt");
            s.image_latent = fields.text("image_latent", false);
            s.image_embeds = fields.text("image_embeds", false);
            index.samples.push_back(std::move(s));
        } else if (kind == "skipped") {
            SkippedClip s;
            s.line = fields.integer("line");
            s.path = fields.text("path", false);
            s.reason = fields.text("reason");
            s.message = fields.text("message", false);
            index.skipped.push_back(std::move(s));
        }
    }
    if (!have_dataset) {
        throw core::Error(core::ErrorCode::BadInput,
                          origin + " has no \"dataset\" line, so it was not written by prepare.",
                          "Run `tuneframe-engine prepare --job job.json` to write it.");
    }
    return index;
}

PreparedIndex PreparedIndex::read(const std::filesystem::path& file) {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
        throw core::io_error("Cannot open the prepared dataset", file.string(), errno);
    }
    std::ostringstream bytes;
    bytes << stream.rdbuf();
    if (stream.bad()) {
        throw core::Error(core::ErrorCode::Io, "Cannot read '" + file.string() + "' to the end.",
                          "Run `tuneframe-engine prepare` on the job again.");
    }
    return parse(bytes.str(), file.string());
}

std::string PreparedIndex::to_jsonl() const {
    std::string text;
    ordered_json head;
    head["v"] = kPreparedIndexVersion;
    head["kind"] = "dataset";
    head["manifest"] = dataset.manifest;
    head["cache_dir"] = dataset.cache_dir;
    head["model"] = dataset.model;
    head["task"] = dataset.task;
    head["dtype"] = dataset.dtype;
    head["text_length"] = dataset.text_length;
    head["samples"] = samples.size();
    head["skipped"] = skipped.size();
    text += json_line(head);
    for (const PreparedSample& s : samples) {
        ordered_json line;
        line["v"] = kPreparedIndexVersion;
        line["kind"] = "sample";
        line["line"] = s.line;
        line["path"] = s.path;
        line["caption"] = s.caption;
        line["frames"] = s.frames;
        line["height"] = s.height;
        line["width"] = s.width;
        line["bucket"] = s.bucket();
        line["latent"] = s.latent;
        line["prompt"] = s.prompt;
        if (!s.image_embeds.empty()) {
            line["image_embeds"] = s.image_embeds;
        }
        if (!s.image_latent.empty()) {
            line["image_latent"] = s.image_latent;
        }
        text += json_line(line);
    }
    for (const SkippedClip& s : skipped) {
        ordered_json line;
        line["v"] = kPreparedIndexVersion;
        line["kind"] = "skipped";
        line["line"] = s.line;
        line["path"] = s.path;
        line["reason"] = s.reason;
        line["message"] = s.message;
        text += json_line(line);
    }
    return text;
}

void PreparedIndex::write(const std::filesystem::path& file) const {
    core::write_file_atomically(file, to_jsonl());
}

std::string PreparedIndex::fingerprint() const {
    Sha256 hash;
    for (const PreparedSample& s : samples) {
        // Image embeddings only where there are some, so the fingerprints of other runs stay.
        hash.update(s.bucket() + " " + s.latent + " " + s.prompt + " " + s.image_latent +
                    (s.image_embeds.empty() ? "" : " " + s.image_embeds) + "\n");
    }
    return hash.hex();
}

} // namespace tuneframe::data
