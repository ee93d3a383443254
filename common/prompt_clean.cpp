#include "common/prompt_clean.h"

#include "common/unicode_tables.h"
#include "common/unicode_text.h"

#include <array>
#include <utility>

namespace tuneframe::common {
namespace {

// ftfy's LIGATURES: single-character Latin ligatures and digraphs, taken apart.
constexpr std::array<std::pair<char32_t, std::u32string_view>, 22> kLigatures = {{
    {0x0132, U"IJ"},      {0x0133, U"ij"}, {0x0149, U"\u02BCn"}, {0x01F1, U"DZ"},
    {0x01F2, U"Dz"},      {0x01F3, U"dz"}, {0x01C4, U"D\u017D"}, {0x01C5, U"D\u017E"},
    {0x01C6, U"d\u017E"}, {0x01C7, U"LJ"}, {0x01C8, U"Lj"},      {0x01C9, U"lj"},
    {0x01CA, U"NJ"},      {0x01CB, U"Nj"}, {0x01CC, U"nj"},      {0xFB00, U"ff"},
    {0xFB01, U"fi"},      {0xFB02, U"fl"}, {0xFB03, U"ffi"},     {0xFB04, U"ffl"},
    {0xFB05, U"\u017Ft"}, {0xFB06, U"st"},
}};

bool is_ascii_alnum(char32_t c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// ftfy's unescape_html: `&#?[0-9A-Za-z]{1,24};` replaced when it names an html5 entity (or
// ftfy's all-caps form of one), or is a numeric reference html.unescape reads whole.
std::u32string unescape_html(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    std::size_t pos = 0;
    while (pos < text.size()) {
        if (text[pos] != U'&') {
            out.push_back(text[pos++]);
            continue;
        }
        const std::size_t name_start = pos + 1 + (pos + 1 < text.size() && text[pos + 1] == U'#');
        std::size_t end = name_start;
        while (end < text.size() && end - name_start < 24 && is_ascii_alnum(text[end])) {
            ++end;
        }
        if (end == name_start || end >= text.size() || text[end] != U';') {
            out.push_back(text[pos++]);
            continue;
        }
        const std::u32string reference = text.substr(pos, end + 1 - pos);
        const std::string name = code_points_to_utf8(reference.substr(1));
        if (const char* entity = html5_entity(name)) {
            out += utf8_to_code_points(entity);
        } else if (const char* upper = ftfy_uppercase_entity(name)) {
            out += utf8_to_code_points(upper);
        } else if (name[0] == '#') {
            const std::u32string unescaped = html_unescape(reference);
            out += unescaped.find(U';') == std::u32string::npos ? unescaped : reference;
        } else {
            out += reference;
        }
        pos = end + 1;
    }
    return out;
}

// ftfy's ANSI_RE, "\033\[((?:\d|;)*)([a-zA-Z])", removed.
std::u32string remove_terminal_escapes(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        if (text[pos] == 0x1B && pos + 1 < text.size() && text[pos + 1] == U'[') {
            std::size_t end = pos + 2;
            while (end < text.size() &&
                   ((text[end] >= '0' && text[end] <= '9') || text[end] == ';')) {
                ++end;
            }
            const bool letter =
                end < text.size() && ((text[end] | 0x20) >= 'a' && (text[end] | 0x20) <= 'z');
            if (letter) {
                pos = end;
                continue;
            }
        }
        out.push_back(text[pos]);
    }
    return out;
}

// ftfy's CONTROL_CHARS: C0 controls other than \t \n \f \r, DEL, the deprecated Arabic format
// controls, the byte order mark and the interlinear annotation characters.
bool is_removed_control(char32_t c) {
    return c <= 0x08 || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
           (c >= 0x206A && c <= 0x206F) || c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFC);
}

// fix_c1_controls, fix_latin_ligatures, fix_character_width and uncurl_quotes, which follow each
// other in ftfy, map single characters, so one pass does all four. What a ligature or a width
// form becomes goes through the later steps (U+0149 becomes "'n"); the earlier ones cannot
// change it.
void append_fixed(char32_t c, std::u32string& out) {
    if (c >= 0x80 && c <= 0x9F) {
        // Read as Windows-1252, its five undefined bytes staying as they are (sloppy codec);
        // html's table of redirected references is exactly that mapping.
        c = html_invalid_charref(c).value_or(c);
    }
    for (const auto& [ligature, letters] : kLigatures) {
        if (c == ligature) {
            for (char32_t letter : letters) {
                append_fixed(letter, out);
            }
            return;
        }
    }
    if (const WidthMapping* width = find_standard_width(c)) {
        append_fixed(width->first, out);
        if (width->second != 0) {
            append_fixed(width->second, out);
        }
        return;
    }
    if (c == 0x02BC || (c >= 0x2018 && c <= 0x201B)) {
        c = U'\'';
    } else if (c >= 0x201C && c <= 0x201F) {
        c = U'"';
    }
    out.push_back(c);
}

std::u32string remove_control_chars(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (char32_t c : text) {
        if (!is_removed_control(c)) {
            out.push_back(c);
        }
    }
    return out;
}

std::u32string fix_line_breaks(const std::u32string& text) {
    std::u32string out;
    out.reserve(text.size());
    for (std::size_t pos = 0; pos < text.size(); ++pos) {
        const char32_t c = text[pos];
        if (c == U'\r' && pos + 1 < text.size() && text[pos + 1] == U'\n') {
            continue; // the '\n' follows
        }
        out.push_back(c == U'\r' || c == 0x2028 || c == 0x2029 || c == 0x85 ? U'\n' : c);
    }
    return out;
}

// ftfy's fix_and_explain loop for one segment.
std::u32string fix_segment(std::u32string text, bool unescape) {
    for (;;) {
        const std::u32string original = text;
        if (unescape) {
            text = unescape_html(text);
        }
        std::u32string fixed;
        fixed.reserve(text.size());
        for (char32_t c : text) {
            append_fixed(c, fixed);
        }
        text = nfc(remove_control_chars(remove_terminal_escapes(fix_line_breaks(fixed))));
        if (text == original) {
            return text;
        }
    }
}

std::u32string strip(std::u32string_view text) {
    std::size_t start = 0;
    std::size_t end = text.size();
    while (start < end && is_python_space(text[start])) {
        ++start;
    }
    while (end > start && is_python_space(text[end - 1])) {
        --end;
    }
    return std::u32string(text.substr(start, end - start));
}

} // namespace

std::string ftfy_fix_text(std::string_view text) {
    const std::u32string code_points = utf8_to_code_points(text);
    std::u32string out;
    bool unescape = true;
    std::size_t pos = 0;
    while (pos < code_points.size()) {
        const std::size_t line_end = code_points.find(U'\n', pos);
        const std::size_t end =
            line_end == std::u32string::npos ? code_points.size() : line_end + 1;
        const std::u32string segment = code_points.substr(pos, end - pos);
        // A segment that looks like HTML turns entity decoding off for the rest of the text.
        unescape = unescape && segment.find(U'<') == std::u32string::npos;
        out += fix_segment(segment, unescape);
        pos = end;
    }
    return code_points_to_utf8(out);
}

std::string wan_prompt_clean(std::string_view prompt) {
    const std::u32string fixed = utf8_to_code_points(ftfy_fix_text(prompt));
    const std::u32string basic = strip(html_unescape(html_unescape(fixed)));
    std::u32string collapsed;
    collapsed.reserve(basic.size());
    // re.sub(r"\s+", " "): an output space can only come from a run of whitespace.
    for (char32_t c : basic) {
        if (!is_python_space(c)) {
            collapsed.push_back(c);
        } else if (collapsed.empty() || collapsed.back() != U' ') {
            collapsed.push_back(U' ');
        }
    }
    return code_points_to_utf8(strip(collapsed));
}

} // namespace tuneframe::common
