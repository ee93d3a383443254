#pragma once

// The prompt cleaning of diffusers' Wan pipelines (pipelines/wan/pipeline_wan.py
// `prompt_clean`), shared by the engine, which tokenizes the result, and the studio, which counts
// a caption's tokens with the same text:
//   basic_clean: ftfy.fix_text, html.unescape twice, strip;
//   whitespace_clean: every run of whitespace becomes one space, strip.
//
// fix_text here is ftfy 6.3.1's with its default settings, line by line as ftfy splits the text,
// each line fixed until it stops changing: HTML entities (not in a text with '<'), C1 controls
// read as Windows-1252, Latin ligatures taken apart, halfwidth and fullwidth forms made
// standard width, curly quotes straightened, line breaks made '\n', ANSI terminal escapes and
// control characters removed, NFC. Not reproduced: ftfy's mojibake repair (fix_encoding,
// restore_byte_a0, replace_lossy_sequences, decode_inconsistent_utf8), which guesses whether
// text was decoded with the wrong codec ("sÃ³" stays as it is instead of becoming "só"), and
// fix_surrogates, which UTF-8 input cannot need. Malformed UTF-8 bytes become U+FFFD.

#include <string>
#include <string_view>

namespace tuneframe::common {

// ftfy.fix_text(text) with the exceptions above. UTF-8 in and out.
std::string ftfy_fix_text(std::string_view text);

// diffusers' prompt_clean for Wan: what the pipelines tokenize.
std::string wan_prompt_clean(std::string_view prompt);

} // namespace tuneframe::common
