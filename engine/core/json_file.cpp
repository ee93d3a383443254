#include "engine/core/json_file.h"

#include "engine/core/atomic_file.h"

#include <fstream>
#include <sstream>

namespace tuneframe::core {
namespace {

// nlohmann reports a byte offset; people look for a line and column.
std::string position_of(const std::string& text, std::size_t byte) {
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// "number overflow parsing '1e600'" without nlohmann's "[json.exception.out_of_range.406] ".
std::string without_exception_id(const nlohmann::json::exception& error) {
    const std::string text = error.what();
    const std::size_t end = text.find("] ");
    return end == std::string::npos ? text : text.substr(end + 2);
}

} // namespace

nlohmann::json read_json_file(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        throw io_error("Cannot open", path.string(), errno);
    }
    std::ostringstream buffer;
    buffer << stream.rdbuf();
    const std::string text = buffer.str();
    // The parser takes a NUL as the end of the text, so `{...}\0anything` would read as `{...}`;
    // a NUL inside a JSON string is written \u0000, so a raw one is always damage.
    if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
        throw Error(ErrorCode::BadInput,
                    "'" + path.string() + "' holds a NUL byte (" + position_of(text, nul) +
                        "), so it is not valid JSON.",
                    "Fix the file in a text editor or restore it from the original download.");
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& error) {
        throw Error(ErrorCode::BadInput,
                    "'" + path.string() + "' is not valid JSON (" +
                        position_of(text, error.byte > 0 ? error.byte - 1 : 0) + ").",
                    "Fix the file in a text editor or restore it from the original download.");
    } catch (const nlohmann::json::out_of_range& error) {
        // The parser's other refusal: a number past double's range, such as 1e600.
        throw Error(ErrorCode::BadInput,
                    "'" + path.string() + "' is not valid JSON (" + without_exception_id(error) +
                        ").",
                    "Fix the file in a text editor or restore it from the original download.");
    }
}

void write_json_file(const std::filesystem::path& path, const nlohmann::json& value) {
    write_file_atomically(path, value.dump(2) + "\n");
}

JsonFields::JsonFields(const nlohmann::json& object, std::string origin)
    : object_(object)
    , origin_(std::move(origin)) {
    if (!object_.is_object()) {
        throw Error(ErrorCode::BadInput, origin_ + " is not a JSON object.",
                    "The file must hold one { ... } object.");
    }
}

const nlohmann::json& JsonFields::lookup(const std::string& key) const {
    static const nlohmann::json null_value;
    auto it = object_.find(key);
    return it == object_.end() ? null_value : *it;
}

void JsonFields::wrong_type(const std::string& key, const nlohmann::json& value,
                            const char* expected) const {
    throw Error(ErrorCode::BadInput,
                origin_ + ": the field \"" + key + "\" must be " + expected + ", not " +
                    value.dump() + ".",
                "Correct \"" + key + "\" in the file.");
}

} // namespace tuneframe::core
