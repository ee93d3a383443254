# Writes unicode_tables.cpp beside this file from CPython's unicodedata and html modules (see
# unicode_tables.h). Run with the Python whose Unicode version the tables should have, then
# clang-format the output: python3 common/unicode_tables.py && clang-format -i common/unicode_tables.cpp
import html
import html.entities as he
import os
import sys
import unicodedata as u

out=[]
w=out.append
w('// Generated from CPython %s\'s unicodedata (Unicode %s) and html.entities; do not edit by hand.' % (sys.version.split()[0], u.unidata_version))
w('// Written by common/unicode_tables.py; common/unicode_tables.h names the data each table comes from.')
w('#include "common/unicode_tables.h"')
w('')
w('#include <algorithm>')
w('#include <iterator>')
w('')
w('namespace tuneframe::common {')
w('namespace {')
w('')
w('// clang-format off')
# decompositions
dec=[]
for cp in range(0x110000):
    d=u.decomposition(chr(cp))
    if d and not d.startswith('<'):
        parts=[int(p,16) for p in d.split()]
        assert len(parts) in (1,2)
        first=parts[0]; second=parts[1] if len(parts)==2 else 0
        composes = len(parts)==2 and u.normalize('NFC', chr(first)+chr(second))==chr(cp)
        dec.append((cp,first,second,1 if composes else 0))
w('// Canonical decompositions: code point, first, second (0 for a singleton).')
w('constexpr CanonicalDecomposition kDecompositions[] = {')
line=[]
for e in dec:
    line.append('{0x%X, 0x%X, 0x%X}' % (e[0],e[1],e[2]))
    if len(line)==4:
        w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
ccc=[]
for cp in range(0x110000):
    c=u.combining(chr(cp))
    if c:
        if ccc and ccc[-1][1]==cp-1 and ccc[-1][2]==c: ccc[-1][1]=cp
        else: ccc.append([cp,cp,c])
w('// Canonical combining classes other than 0, as ranges: first, last, class.')
w('constexpr CombiningClassRange kCombiningClasses[] = {')
line=[]
for a,b,c in ccc:
    line.append('{0x%X, 0x%X, %d}' % (a,b,c))
    if len(line)==4:
        w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
def cstr_safe(s):
    # A C string literal; a hex escape followed by a hex digit is split so it ends there.
    b=s.encode('utf-8'); prev_hex=False
    res='"'
    for ch in b:
        if 0x20<=ch<0x7f and ch not in (ord('"'),ord('\\'),ord('?')):
            c=chr(ch)
            if prev_hex and c in '0123456789abcdefABCDEF': res+='" "'
            res+=c; prev_hex=False
        else:
            res+='\\x%02X' % ch; prev_hex=True
    return res+'"'
names=sorted(he.html5.items())
w('// WHATWG\'s named character references (html.entities.html5), sorted by name; names with')
w('// a trailing \';\' and the legacy ones without.')
w('constexpr HtmlEntity kHtmlEntities[] = {')
line=[]
for name,val in names:
    line.append('{%s, %s}' % (cstr_safe(name), cstr_safe(val)))
    if len(', '.join(line))>80: w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
up={}
for name,char in he.html5.items():
    if name.endswith(';') and name==name.lower():
        U=name.upper(); e='&'+U
        if html.unescape(e)==e: up[U]=char.upper()
w('// ftfy\'s all-caps entities: the upper-case name of each lower-case html5 name that is no')
w('// entity itself, with the upper-cased text ("EACUTE;" is "\\u00C9").')
w('constexpr HtmlEntity kUppercaseEntities[] = {')
line=[]
for name in sorted(up, key=lambda n: n.encode()):
    line.append('{%s, %s}' % (cstr_safe(name), cstr_safe(up[name])))
    if len(', '.join(line))>80: w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
# html._invalid_charrefs
inv=sorted(html._invalid_charrefs.items())
w('// html.unescape\'s replacements for numeric references the HTML standard redirects.')
w('constexpr CodePointMapping kInvalidCharrefs[] = {')
line=[]
for k,v in inv:
    assert len(v)==1
    line.append('{0x%X, 0x%X}' % (k,ord(v)))
    if len(line)==6: w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
# width map
wm={0x3000:' '}
for i in range(0xFF01,0xFFF0):
    alt=u.normalize('NFKC',chr(i))
    if alt!=chr(i): wm[i]=alt
for k,v in wm.items(): assert len(v) in (1,2),(hex(k),v)
w('// ftfy\'s fix_character_width: U+3000 and the halfwidth and fullwidth forms U+FF01..U+FFEF')
w('// mapped to their NFKC forms.')
w('constexpr WidthMapping kWidthMap[] = {')
line=[]
for k in sorted(wm):
    v=wm[k]
    line.append('{0x%X, 0x%X, 0x%X}' % (k,ord(v[0]),ord(v[1]) if len(v)>1 else 0))
    if len(line)==4: w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('')
comp=sorted((f,s_,cp) for cp,f,s_,c in dec if c)
w('// The primary composites: the pairs of kDecompositions that compose, sorted by the pair.')
w('constexpr PrimaryComposite kCompositions[] = {')
line=[]
for f,s_,cp in comp:
    line.append('{0x%X, 0x%X, 0x%X}' % (f,s_,cp))
    if len(line)==4: w('    '+', '.join(line)+','); line=[]
if line: w('    '+', '.join(line)+',')
w('};')
w('// clang-format on')
w('')
w('''// Orders entries by their key, and keys against entries, for the binary searches.
template <typename Entry>
struct Less;

template <>
struct Less<CanonicalDecomposition> {
    bool operator()(const CanonicalDecomposition& a, char32_t b) const { return a.code_point < b; }
    bool operator()(char32_t a, const CanonicalDecomposition& b) const { return a < b.code_point; }
};

template <>
struct Less<PrimaryComposite> {
    bool operator()(const PrimaryComposite& a, const PrimaryComposite& b) const {
        return a.first != b.first ? a.first < b.first : a.second < b.second;
    }
};

template <>
struct Less<HtmlEntity> {
    bool operator()(const HtmlEntity& a, std::string_view b) const { return std::string_view(a.name) < b; }
    bool operator()(std::string_view a, const HtmlEntity& b) const { return a < std::string_view(b.name); }
};

template <>
struct Less<CodePointMapping> {
    bool operator()(const CodePointMapping& a, char32_t b) const { return a.from < b; }
    bool operator()(char32_t a, const CodePointMapping& b) const { return a < b.from; }
};

template <>
struct Less<WidthMapping> {
    bool operator()(const WidthMapping& a, char32_t b) const { return a.from < b; }
    bool operator()(char32_t a, const WidthMapping& b) const { return a < b.from; }
};

template <typename Table, typename Key, typename Compare>
const auto* find_sorted(const Table& table, const Key& key, Compare less) {
    const auto* end = std::end(table);
    const auto* it = std::lower_bound(std::begin(table), end, key, less);
    return it != end && !less(key, *it) ? it : nullptr;
}

} // namespace

const CanonicalDecomposition* find_canonical_decomposition(char32_t code_point) {
    return find_sorted(kDecompositions, code_point, Less<CanonicalDecomposition>{});
}

std::optional<char32_t> find_primary_composite(char32_t first, char32_t second) {
    const PrimaryComposite key{first, second, 0};
    const auto* found = find_sorted(kCompositions, key, Less<PrimaryComposite>{});
    return found ? std::optional<char32_t>(found->composite) : std::nullopt;
}

int canonical_combining_class(char32_t code_point) {
    const auto* end = std::end(kCombiningClasses);
    const auto* it = std::upper_bound(std::begin(kCombiningClasses), end, code_point,
                                      [](char32_t value, const CombiningClassRange& range) {
                                          return value < range.first;
                                      });
    if (it == std::begin(kCombiningClasses)) {
        return 0;
    }
    --it;
    return code_point <= it->last ? it->combining_class : 0;
}

const char* html5_entity(std::string_view name) {
    const auto* found = find_sorted(kHtmlEntities, name, Less<HtmlEntity>{});
    return found ? found->text : nullptr;
}

const char* ftfy_uppercase_entity(std::string_view name) {
    const auto* found = find_sorted(kUppercaseEntities, name, Less<HtmlEntity>{});
    return found ? found->text : nullptr;
}

std::optional<char32_t> html_invalid_charref(char32_t code_point) {
    const auto* found = find_sorted(kInvalidCharrefs, code_point, Less<CodePointMapping>{});
    return found ? std::optional<char32_t>(found->to) : std::nullopt;
}

const WidthMapping* find_standard_width(char32_t code_point) {
    return find_sorted(kWidthMap, code_point, Less<WidthMapping>{});
}

} // namespace tuneframe::common''')
open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'unicode_tables.cpp'), 'w').write('\n'.join(out)+'\n')
# The lookups compare names bytewise, as std::string_view does.
bs=[n.encode() for n,_ in names]; assert bs==sorted(bs)
