#pragma once

// Unicode and HTML tables for cleaning prompts the way Python does (unicode_normalization.h,
// html_unescape.h, prompt_clean.h). unicode_tables.cpp is generated from CPython's own data so
// the lookups agree with `unicodedata` and `html`: for each code point with a canonical
// decomposition `unicodedata.decomposition` without a <tag>, whether
// `unicodedata.normalize("NFC", pair)` gives it back, `unicodedata.combining`,
// `html.entities.html5`, ftfy's upper-cased entities (chardata._build_html_entities),
// `html._invalid_charrefs`, and NFKC of U+3000 and U+FF01..U+FFEF (chardata._build_width_map).
// Unicode 14.0 (CPython 3.11); the golden prompts were cleaned under 15.1, which adds no
// composition a caption is likely to hold.

#include <optional>
#include <string_view>

namespace tuneframe::common {

struct CanonicalDecomposition {
    char32_t code_point;
    char32_t first;
    char32_t second; // 0 for a singleton decomposition
    bool composes;   // the pair is a primary composite (not excluded from composition)
};

struct PrimaryComposite {
    char32_t first;
    char32_t second;
    char32_t composite;
};

struct CombiningClassRange {
    char32_t first;
    char32_t last;
    int combining_class;
};

struct HtmlEntity {
    const char* name; // "amp;" or the legacy "amp"
    const char* text; // UTF-8
};

struct CodePointMapping {
    char32_t from;
    char32_t to;
};

struct WidthMapping {
    char32_t from;
    char32_t first;
    char32_t second; // 0 unless the form takes two code points (U+FFE3: space, macron)
};

// One level of canonical decomposition, or nullptr.
const CanonicalDecomposition* find_canonical_decomposition(char32_t code_point);
std::optional<char32_t> find_primary_composite(char32_t first, char32_t second);
int canonical_combining_class(char32_t code_point);

// The text of a named reference ("amp;", "eacute") as html.entities.html5 has it, or nullptr.
const char* html5_entity(std::string_view name);
// ftfy's extra all-caps names ("EACUTE;" is "\u00C9"), or nullptr.
const char* ftfy_uppercase_entity(std::string_view name);
// What html.unescape puts for a numeric reference the HTML standard redirects (&#128; is "€").
std::optional<char32_t> html_invalid_charref(char32_t code_point);

// ftfy's fix_character_width for one code point, or nullptr when it stays.
const WidthMapping* find_standard_width(char32_t code_point);

} // namespace tuneframe::common
