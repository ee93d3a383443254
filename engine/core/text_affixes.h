#pragma once

// std::string's starts_with/ends_with arrive with C++20; the engine builds as C++17 for LibTorch
// 1.13. One shared pair rather than a file-local copy per file: a unity build puts those copies
// in one scope, where differing signatures overload silently.

#include <string_view>

namespace tuneframe::core {

inline bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

inline bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

} // namespace tuneframe::core
