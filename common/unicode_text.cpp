#include "common/unicode_text.h"

#include "common/unicode_tables.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace tuneframe::common {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// Hangul syllables decompose and compose by arithmetic (Unicode's section 3.12).
constexpr char32_t kSBase = 0xAC00;
constexpr char32_t kLBase = 0x1100;
constexpr char32_t kVBase = 0x1161;
constexpr char32_t kTBase = 0x11A7;
constexpr char32_t kLCount = 19;
constexpr char32_t kVCount = 21;
constexpr char32_t kTCount = 28;
constexpr char32_t kSCount = kLCount * kVCount * kTCount;

void decompose(char32_t c, std::u32string& out) {
    if (c >= kSBase && c < kSBase + kSCount) {
        const char32_t index = c - kSBase;
        out.push_back(kLBase + index / (kVCount * kTCount));
        out.push_back(kVBase + (index % (kVCount * kTCount)) / kTCount);
        if (index % kTCount != 0) {
            out.push_back(kTBase + index % kTCount);
        }
        return;
    }
    const CanonicalDecomposition* entry = find_canonical_decomposition(c);
    if (!entry) {
        out.push_back(c);
        return;
    }
    decompose(entry->first, out);
    if (entry->second != 0) {
        decompose(entry->second, out);
    }
}

std::optional<char32_t> compose(char32_t first, char32_t second) {
    if (first >= kLBase && first < kLBase + kLCount && second >= kVBase &&
        second < kVBase + kVCount) {
        return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
    }
    if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 &&
        second > kTBase && second < kTBase + kTCount) {
        return first + (second - kTBase);
    }
    return find_primary_composite(first, second);
}

// Stable sort of each run of non-starters by combining class.
void reorder(std::u32string& text) {
    std::size_t start = 0;
    while (start < text.size()) {
        if (canonical_combining_class(text[start]) == 0) {
            ++start;
            continue;
        }
        std::size_t end = start;
        while (end < text.size() && canonical_combining_class(text[end]) != 0) {
            ++end;
        }
        std::stable_sort(text.begin() + static_cast<long>(start),
                         text.begin() + static_cast<long>(end), [](char32_t a, char32_t b) {
                             return canonical_combining_class(a) < canonical_combining_class(b);
                         });
        start = end;
    }
}

// Canonical composition (UAX #15's reference loop): a character joins the last starter unless
// a character between them has the same or a higher class, or is a starter itself. Text that
// opens with non-starters composes nothing until its first starter.
std::u32string compose_all(std::u32string text) {
    if (text.empty()) {
        return text;
    }
    std::size_t starter = 0;
    int last_class = canonical_combining_class(text[0]) == 0 ? 0 : 256;
    std::size_t kept = 1;
    for (std::size_t i = 1; i < text.size(); ++i) {
        const char32_t c = text[i];
        const int klass = canonical_combining_class(c);
        if (last_class < klass || last_class == 0) {
            if (auto composite = compose(text[starter], c)) {
                text[starter] = *composite;
                continue;
            }
        }
        if (klass == 0) {
            starter = kept;
        }
        last_class = klass;
        text[kept++] = c;
    }
    text.resize(kept);
    return text;
}

bool is_hex_digit(char32_t c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// html._invalid_codepoints: controls and noncharacters a numeric reference drops.
bool is_dropped_code_point(char32_t c) {
    return (c >= 0x1 && c <= 0x8) || c == 0xB || (c >= 0xE && c <= 0x1F) ||
           (c >= 0x7F && c <= 0x9F) || (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
}

// The text of `&#...` without its '&' and optional ';'.
std::u32string numeric_reference(std::u32string_view digits, bool hex) {
    char32_t value = 0;
    bool overflow = false;
    for (char32_t c : digits) {
        const char32_t digit = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        value = value * (hex ? 16 : 10) + digit;
        overflow = overflow || value > 0x10FFFF;
        if (overflow) {
            value = 0x110000;
        }
    }
    if (auto replacement = html_invalid_charref(value)) {
        return std::u32string(1, *replacement);
    }
    if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF) {
        return std::u32string(1, kReplacement);
    }
    if (is_dropped_code_point(value)) {
        return {};
    }
    return std::u32string(1, value);
}

// A named reference `name` (up to 32 characters, ';' included when present): the entity, the
// longest legacy name it starts with followed by the rest, or itself with its '&'.
std::u32string named_reference(std::u32string_view name) {
    const std::string utf8 = code_points_to_utf8(name);
    if (const char* text = html5_entity(utf8)) {
        return utf8_to_code_points(text);
    }
    for (std::size_t length = name.size() - 1; length > 1; --length) {
        if (const char* text = html5_entity(code_points_to_utf8(name.substr(0, length)))) {
            return utf8_to_code_points(text) + std::u32string(name.substr(length));
        }
    }
    return U"&" + std::u32string(name);
}

} // namespace

std::u32string utf8_to_code_points(std::string_view text) {
    std::u32string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto lead = static_cast<unsigned char>(text[pos]);
        const std::size_t length = lead < 0x80           ? 1
                                   : (lead >> 5) == 0x6  ? 2
                                   : (lead >> 4) == 0xE  ? 3
                                   : (lead >> 3) == 0x1E ? 4
                                                         : 0;
        bool valid = length > 0 && pos + length <= text.size();
        char32_t code = length == 1 ? lead : lead & (0x7F >> length);
        for (std::size_t i = 1; valid && i < length; ++i) {
            const auto next = static_cast<unsigned char>(text[pos + i]);
            valid = (next & 0xC0) == 0x80;
            code = (code << 6) | (next & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are malformed too.
        static constexpr char32_t kSmallest[] = {0, 0, 0x80, 0x800, 0x10000};
        valid = valid && code >= kSmallest[length] && code <= 0x10FFFF &&
                !(code >= 0xD800 && code <= 0xDFFF);
        out.push_back(valid ? code : kReplacement);
        pos += valid ? length : 1;
    }
    return out;
}

std::string code_points_to_utf8(std::u32string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (c < 0x80) {
            out.push_back(static_cast<char>(c));
        } else if (c < 0x800) {
            out.push_back(static_cast<char>(0xC0 | (c >> 6)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else if (c < 0x10000) {
            out.push_back(static_cast<char>(0xE0 | (c >> 12)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        } else {
            out.push_back(static_cast<char>(0xF0 | (c >> 18)));
            out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
            out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
        }
    }
    return out;
}

std::u32string nfc(std::u32string_view text) {
    std::u32string decomposed;
    decomposed.reserve(text.size());
    for (char32_t c : text) {
        decompose(c, decomposed);
    }
    reorder(decomposed);
    return compose_all(std::move(decomposed));
}

std::u32string html_unescape(std::u32string_view text) {
    if (text.find(U'&') == std::u32string_view::npos) {
        return std::u32string(text);
    }
    std::u32string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (text[pos] != U'&' || pos + 1 == text.size()) {
            out.push_back(text[pos++]);
            continue;
        }
        const std::size_t start = pos + 1;
        std::size_t end = start;
        if (text[start] == U'#') {
            // &#[0-9]+;? or &#[xX][0-9a-fA-F]+;?
            const bool hex = start + 1 < text.size() && (text[start + 1] | 0x20) == U'x';
            end = start + (hex ? 2 : 1);
            while (end < text.size() &&
                   (hex ? is_hex_digit(text[end]) : (text[end] >= '0' && text[end] <= '9'))) {
                ++end;
            }
            const std::size_t first_digit = start + (hex ? 2 : 1);
            if (end == first_digit) {
                out.push_back(text[pos++]);
                continue;
            }
            out += numeric_reference(text.substr(first_digit, end - first_digit), hex);
            pos = end < text.size() && text[end] == U';' ? end + 1 : end;
            continue;
        }
        // [^\t\n\f <&#;]{1,32};?
        while (end < text.size() && end - start < 32 &&
               std::u32string_view(U"\t\n\f <&#;").find(text[end]) == std::u32string_view::npos) {
            ++end;
        }
        if (end == start) {
            out.push_back(text[pos++]);
            continue;
        }
        if (end < text.size() && text[end] == U';') {
            ++end;
        }
        out += named_reference(text.substr(start, end - start));
        pos = end;
    }
    return out;
}

bool is_python_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

} // namespace tuneframe::common
