#pragma once

// UTF-8 text as code points, and the Unicode and HTML transformations prompt cleaning needs,
// each as CPython computes it (unicodedata.normalize("NFC"), html.unescape, str.isspace).

#include <string>
#include <string_view>

namespace tuneframe::common {

// Each malformed byte becomes U+FFFD, as Python's "replace" error handler does.
std::u32string utf8_to_code_points(std::string_view text);
std::string code_points_to_utf8(std::u32string_view text);

// unicodedata.normalize("NFC", text): canonical decomposition (Hangul algorithmically),
// canonical ordering, then canonical composition.
std::u32string nfc(std::u32string_view text);

// html.unescape: numeric references (with the standard's replacements and U+FFFD out of
// range) and the html5 named references, legacy ones also without their ';'.
std::u32string html_unescape(std::u32string_view text);

// str.isspace(), which Python's str.strip() and the regex \s of str patterns use.
bool is_python_space(char32_t c);

} // namespace tuneframe::common
