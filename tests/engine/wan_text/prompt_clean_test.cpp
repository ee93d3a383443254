// common::wan_prompt_clean and the pieces it is made of (ftfy's fix_text, html.unescape, NFC),
// against what CPython and ftfy 6.3.1 give. The golden prompts are checked in
// wan_prompt_encoder_test.cpp.
#include "common/prompt_clean.h"
#include "common/unicode_text.h"

#include <gtest/gtest.h>

namespace tuneframe::common {
namespace {

std::string nfc_utf8(const std::string& text) {
    return code_points_to_utf8(nfc(utf8_to_code_points(text)));
}

std::string unescape_utf8(const std::string& text) {
    return code_points_to_utf8(html_unescape(utf8_to_code_points(text)));
}

TEST(Nfc, ComposesDecomposedLettersAndHangulAndOrdersMarks) {
    EXPECT_EQ(nfc_utf8("e\u0301"), "\u00E9");
    EXPECT_EQ(nfc_utf8("\u1100\u1161\u11A8"), "\uAC01"); // L + V + T
    EXPECT_EQ(nfc_utf8("\u30AB\u3099"), "\u30AC");
    // Dot below (class 220) sorts before circumflex (230) whichever order they come in.
    EXPECT_EQ(nfc_utf8("a\u0323\u0302"), "\u1EAD");
    EXPECT_EQ(nfc_utf8("a\u0302\u0323"), "\u1EAD");
    // A leading mark stays; singletons and excluded composites decompose for good.
    EXPECT_EQ(nfc_utf8("\u0302a"), "\u0302a");
    EXPECT_EQ(nfc_utf8("\u212B"), "\u00C5");
    EXPECT_EQ(nfc_utf8("\u0344"), "\u0308\u0301");
    EXPECT_EQ(nfc_utf8("plain ascii"), "plain ascii");
}

TEST(HtmlUnescape, FollowsPythonsRules) {
    EXPECT_EQ(unescape_utf8("&#8220;hi&#8221; &#x27;a&#39;"), "\u201Chi\u201D 'a'");
    EXPECT_EQ(unescape_utf8("this&not that"), "this\u00AC that"); // legacy name, no ';'
    EXPECT_EQ(unescape_utf8("&notit;"), "\u00ACit;");             // longest legacy prefix
    EXPECT_EQ(unescape_utf8("&#128;&#0;&#x110000;&#1;"), "\u20AC\uFFFD\uFFFD");
    EXPECT_EQ(unescape_utf8("AT&T &#; &#x; &"), "AT&T &#; &#x; &");
    EXPECT_EQ(unescape_utf8("&NotNestedGreaterGreater;"), "\u2AA2\u0338");
}

TEST(Utf8, MalformedBytesBecomeReplacementCharacters) {
    EXPECT_EQ(code_points_to_utf8(utf8_to_code_points("a\xC3(b\xED\xA0\x80")),
              "a\uFFFD(b\uFFFD\uFFFD\uFFFD");
    EXPECT_EQ(utf8_to_code_points("\xF0\x9F\x98\x80"), std::u32string(1, 0x1F600));
}

TEST(FtfyFixText, FixesWhatCaptionsCarry) {
    EXPECT_EQ(ftfy_fix_text("Two cats &amp; a dog, \u201Cnear\u201D"),
              "Two cats & a dog, \"near\"");
    EXPECT_EQ(ftfy_fix_text("&amp;amp;amp;"), "&"); // repeated until it stops changing
    EXPECT_EQ(ftfy_fix_text("P&EACUTE;REZ &nTILDE;"), "P\u00C9REZ &nTILDE;");
    EXPECT_EQ(ftfy_fix_text("\uFF21\uFF22\uFF23\uFF11\uFF12\uFF13\uFF01\u3000x"), "ABC123! x");
    EXPECT_EQ(ftfy_fix_text("\uFF76\uFF9E"), "\u30AC"); // halfwidth kana, then NFC
    EXPECT_EQ(ftfy_fix_text("\uFB01sh \u0149"), "fish 'n");
    EXPECT_EQ(ftfy_fix_text("\x1B[36;44mblue\x1B[0m\x07"), "blue");
    EXPECT_EQ(ftfy_fix_text("\u0093quoted\u0094 \u0085"), "\"quoted\" \u2026");
    EXPECT_EQ(ftfy_fix_text("a\r\nb\rc\u2028d"), "a\nb\nc\nd");
    EXPECT_EQ(ftfy_fix_text("\uFEFFcaf\u0065\u0301"), "caf\u00E9");
}

TEST(FtfyFixText, LeavesEntitiesAloneFromALineThatLooksLikeHtmlOn) {
    EXPECT_EQ(ftfy_fix_text("a &amp; b\n<b>&amp;</b>\nc &amp; d"),
              "a & b\n<b>&amp;</b>\nc &amp; d");
}

TEST(WanPromptClean, MatchesThePipelinesPromptClean) {
    EXPECT_EQ(wan_prompt_clean("  Two   cats &amp; a\tdog, \u201Cnear\u201D the   \uFF22ridge  "),
              "Two cats & a dog, \"near\" the Bridge");
    // html.unescape twice after ftfy, which skipped the HTML-looking text.
    EXPECT_EQ(wan_prompt_clean("<b>&amp;amp;amp;</b>"), "<b>&amp;</b>");
    EXPECT_EQ(wan_prompt_clean("this&not that"), "this\u00AC that");
    EXPECT_EQ(wan_prompt_clean("\u00A0a\u2003 b\n\nc\t&nbsp;"), "a b c");
    EXPECT_EQ(wan_prompt_clean(""), "");
    EXPECT_EQ(wan_prompt_clean(" \t\n"), "");
    EXPECT_EQ(wan_prompt_clean("\u4E00\u53EA\u732B on the \u7A97\u53F0"),
              "\u4E00\u53EA\u732B on the \u7A97\u53F0");
}

} // namespace
} // namespace tuneframe::common
