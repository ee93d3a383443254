#pragma once

#include "engine/core/error.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace tuneframe::core {

// Reads a JSON file; a missing file or a syntax error throws Error naming the file, the line and
// the column.
nlohmann::json read_json_file(const std::filesystem::path& path);

// Writes JSON atomically, pretty-printed, with a trailing newline.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& value);

// Typed access to a config object, with errors that name the file and the field: configs come
// from users and other tools, so a wrong type is a BadInput, never an uncaught json exception.
class JsonFields {
public:
    JsonFields(const nlohmann::json& object, std::string origin);

    template <typename T>
    T required(const std::string& key) const {
        const nlohmann::json& value = lookup(key);
        if (value.is_null()) {
            throw Error(ErrorCode::BadInput, origin_ + ": the field \"" + key + "\" is missing.",
                        "Add \"" + key + "\" to the file.");
        }
        return convert<T>(key, value);
    }

    template <typename T>
    T optional(const std::string& key, T fallback) const {
        const nlohmann::json& value = lookup(key);
        return value.is_null() ? fallback : convert<T>(key, value);
    }

    template <typename T>
    std::optional<T> maybe(const std::string& key) const {
        const nlohmann::json& value = lookup(key);
        if (value.is_null()) {
            return std::nullopt;
        }
        return convert<T>(key, value);
    }

    bool has(const std::string& key) const { return !lookup(key).is_null(); }
    const std::string& origin() const { return origin_; }

private:
    const nlohmann::json& lookup(const std::string& key) const;
    [[noreturn]] void wrong_type(const std::string& key, const nlohmann::json& value,
                                 const char* expected) const;

    template <typename T>
    T convert(const std::string& key, const nlohmann::json& value) const {
        if constexpr (std::is_same_v<T, bool>) {
            if (!value.is_boolean()) {
                wrong_type(key, value, "true or false");
            }
        } else if constexpr (std::is_integral_v<T>) {
            if (!value.is_number_integer()) {
                wrong_type(key, value, "an integer");
            }
        } else if constexpr (std::is_floating_point_v<T>) {
            if (!value.is_number()) {
                wrong_type(key, value, "a number");
            }
        } else if constexpr (std::is_same_v<T, std::string>) {
            if (!value.is_string()) {
                wrong_type(key, value, "a string");
            }
        }
        try {
            return value.get<T>();
        } catch (const nlohmann::json::exception&) {
            wrong_type(key, value, "another type");
        }
    }

    const nlohmann::json& object_;
    std::string origin_;
};

} // namespace tuneframe::core
