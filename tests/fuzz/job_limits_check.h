#pragma once

#include "common/training_job.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

// What the job and sweep harnesses check of every job the reader accepts: each field within
// its row of job_field_limits() (issue 39), and the job read back from what it writes.
namespace tuneframe::fuzz {

inline bool text_within(const nlohmann::json& value, const common::JobFieldLimit& limit) {
    const std::string text = value.get<std::string>();
    return text.size() <= limit.max_bytes && text.find('\0') == std::string::npos;
}

inline bool whole_within(const nlohmann::json& value, const common::JobFieldLimit& limit) {
    if (value.is_number_unsigned()) {
        return value.get<std::uint64_t>() <= static_cast<std::uint64_t>(limit.max_integer);
    }
    const std::int64_t number = value.get<std::int64_t>();
    return number >= limit.min_integer && number <= limit.max_integer;
}

inline bool within(const nlohmann::json& value, const common::JobFieldLimit& limit) {
    using Type = common::JobFieldType;
    if (value.is_null()) {
        return limit.nullable;
    }
    const auto items_within = [&](auto&& item_within) {
        return value.size() >= limit.min_items && value.size() <= limit.max_items &&
               std::all_of(value.begin(), value.end(), item_within);
    };
    switch (limit.type) {
    case Type::Integer:
        return whole_within(value, limit);
    case Type::Number:
        return value.get<double>() >= limit.minimum && value.get<double>() <= limit.maximum &&
               !(limit.minimum_excluded && value.get<double>() == limit.minimum);
    case Type::Text:
    case Type::Path:
        return text_within(value, limit);
    case Type::Texts:
    case Type::Paths:
        return items_within([&](const nlohmann::json& item) { return text_within(item, limit); });
    case Type::Integers:
        return items_within([&](const nlohmann::json& item) { return whole_within(item, limit); });
    case Type::Sizes:
        return items_within([&](const nlohmann::json& pair) {
            return whole_within(pair[0], limit) && whole_within(pair[1], limit);
        });
    case Type::Choice:
        return std::count(limit.choices.begin(), limit.choices.end(), value.get<std::string>()) ==
               1;
    default:
        return true;
    }
}

// Traps (a libFuzzer finding) when an accepted job breaks the table or does not read back.
inline void check_job_within_limits(const common::TrainingJob& job) {
    const nlohmann::json written = job.to_json();
    for (const common::JobFieldLimit& limit : common::job_field_limits()) {
        std::string pointer = "/" + limit.field;
        std::replace(pointer.begin(), pointer.end(), '.', '/');
        const nlohmann::json::json_pointer at(pointer);
        if (written.contains(at) && !within(written.at(at), limit)) {
            __builtin_trap();
        }
    }
    try {
        if (common::TrainingJob::from_json(written, "written").to_json() != written) {
            __builtin_trap();
        }
    } catch (const common::JobError&) {
        __builtin_trap();
    }
}

} // namespace tuneframe::fuzz
