#include "app/captions/CaptionDecoder.h"

#include "app/project/UserFile.h"

#include <QRegularExpression>
#include <QStringDecoder>

#include <uchardet/uchardet.h>
#include <unicode/ucsdet.h>

#include <algorithm>
#include <memory>

namespace {

using Encoding = CaptionDecoder::Encoding;

struct KnownEncoding {
    Encoding encoding;
    const char* key;
    const char* name;
    const char* codec; // as Qt's ICU backend names it; nullptr: none
};

// Windows-949 (UHC) extends EUC-KR, which uchardet reports for most Korean text.
constexpr KnownEncoding kEncodings[] = {
    {Encoding::Utf8, "utf-8", "UTF-8", "UTF-8"},
    {Encoding::Utf8WithBom, "utf-8-bom", "UTF-8", "UTF-8"},
    {Encoding::Utf16LittleEndian, "utf-16le", "UTF-16LE", "UTF-16LE"},
    {Encoding::Utf16BigEndian, "utf-16be", "UTF-16BE", "UTF-16BE"},
    {Encoding::Gb18030, "gb18030", "GB18030", "GB18030"},
    {Encoding::Big5, "big5", "Big5", "Big5"},
    {Encoding::ShiftJis, "shift_jis", "Shift-JIS", "Shift_JIS"},
    {Encoding::EucKr, "euc-kr", "EUC-KR", "windows-949"},
    {Encoding::Windows1251, "windows-1251", "Windows-1251 (Cyrillic)", "windows-1251"},
    {Encoding::Windows1252, "windows-1252", "Windows-1252 (Latin-1)", "windows-1252"},
    {Encoding::Undecoded, "bytes", "bytes", nullptr},
};

// uchardet's names for the encodings above; a subset decodes with the encoding that extends it.
struct DetectedName {
    const char* name;
    Encoding encoding;
};

constexpr DetectedName kDetectedNames[] = {
    {"GB18030", Encoding::Gb18030},
    {"GB2312", Encoding::Gb18030},
    {"BIG5", Encoding::Big5},
    {"SHIFT_JIS", Encoding::ShiftJis},
    {"EUC-KR", Encoding::EucKr},
    {"UHC", Encoding::EucKr},
    {"WINDOWS-1251", Encoding::Windows1251},
    {"WINDOWS-1252", Encoding::Windows1252},
    {"ISO-8859-1", Encoding::Windows1252},
    {"ISO-8859-15", Encoding::Windows1252},
};

const KnownEncoding* known(Encoding encoding) {
    for (const KnownEncoding& entry : kEncodings) {
        if (entry.encoding == encoding)
            return &entry;
    }
    return nullptr;
}

// uchardet's name for bytes; empty when it recognises nothing.
QByteArray uchardetName(const QByteArray& bytes) {
    const std::unique_ptr<std::remove_pointer_t<uchardet_t>, decltype(&uchardet_delete)> detector(
        uchardet_new(), &uchardet_delete);
    if (!detector || uchardet_handle_data(detector.get(), bytes.constData(),
                                          static_cast<size_t>(bytes.size())) != 0)
        return QByteArray();
    uchardet_data_end(detector.get());
    return QByteArray(uchardet_get_charset(detector.get()));
}

// ICU's confidence that bytes are UTF-16 without a mark; the byte order that scored best.
int utf16Confidence(const QByteArray& bytes, bool* littleEndian) {
    UErrorCode status = U_ZERO_ERROR;
    const std::unique_ptr<UCharsetDetector, decltype(&ucsdet_close)> detector(ucsdet_open(&status),
                                                                              &ucsdet_close);
    ucsdet_setText(detector.get(), bytes.constData(), static_cast<int32_t>(bytes.size()), &status);
    int32_t count = 0;
    const UCharsetMatch** matches = ucsdet_detectAll(detector.get(), &count, &status);
    if (U_FAILURE(status))
        return 0;
    for (int32_t index = 0; index < count; ++index) {
        const QByteArray name(ucsdet_getName(matches[index], &status));
        if (name == "UTF-16LE" || name == "UTF-16BE") {
            *littleEndian = name == "UTF-16LE";
            return ucsdet_getConfidence(matches[index], &status);
        }
    }
    return 0;
}

// Control characters other than line breaks, tabs and NUL (dropped later) are bytes that are
// not text: ICU's single-byte tables map even Windows-1252's undefined bytes to C1 controls.
bool holdsControlCharacters(const QString& text) {
    for (const QChar c : text) {
        if (c.category() == QChar::Other_Control && c != QLatin1Char('\n') &&
            c != QLatin1Char('\r') && c != QLatin1Char('\t') && c != QChar::Null)
            return true;
    }
    return false;
}

} // namespace

std::optional<QString> CaptionDecoder::decodeWith(const QByteArray& bytes, Encoding encoding) {
    const KnownEncoding* entry = known(encoding);
    if (entry == nullptr || entry->codec == nullptr)
        return std::nullopt;
    QStringDecoder decoder(entry->codec, QStringConverter::Flag::Stateless);
    if (!decoder.isValid())
        return std::nullopt;
    QString text = decoder.decode(bytes);
    if (decoder.hasError() || holdsControlCharacters(text))
        return std::nullopt;
    return text;
}

// A byte order mark declares the encoding; Qt reads it.
std::optional<CaptionDecoder::Result> CaptionDecoder::decodeMarked(const QByteArray& bytes) {
    const std::optional<QStringConverter::Encoding> marked =
        QStringConverter::encodingForData(bytes);
    Encoding encoding = Encoding::Invalid;
    int markBytes = 0;
    if (marked == QStringConverter::Utf8 && bytes.startsWith("\xEF\xBB\xBF")) {
        encoding = Encoding::Utf8WithBom;
        markBytes = 3;
    } else if (marked == QStringConverter::Utf16LE && bytes.startsWith("\xFF\xFE")) {
        encoding = Encoding::Utf16LittleEndian;
        markBytes = 2;
    } else if (marked == QStringConverter::Utf16BE && bytes.startsWith("\xFE\xFF")) {
        encoding = Encoding::Utf16BigEndian;
        markBytes = 2;
    } else {
        return std::nullopt;
    }
    const QByteArray body = bytes.mid(markBytes);
    // Qt drops a dangling last byte of UTF-16 without reporting it.
    const bool whole = markBytes == 3 || body.size() % 2 == 0;
    const std::optional<QString> text = whole ? decodeWith(body, encoding) : std::nullopt;
    if (!text)
        return Result{escapedBytes(bytes), Encoding::Undecoded, true};
    return Result{*text, encoding, false};
}

std::optional<CaptionDecoder::Result>
CaptionDecoder::decodeUtf16WithoutMark(const QByteArray& bytes) {
    bool littleEndian = true;
    if (bytes.size() % 2 != 0 || !bytes.contains('\0') ||
        utf16Confidence(bytes, &littleEndian) < kUtf16Confidence)
        return std::nullopt;
    const Encoding encoding = littleEndian ? Encoding::Utf16LittleEndian : Encoding::Utf16BigEndian;
    const std::optional<QString> text = decodeWith(bytes, encoding);
    if (!text)
        return std::nullopt;
    return Result{*text, encoding, true};
}

std::optional<CaptionDecoder::Result> CaptionDecoder::decodeUtf8(const QByteArray& bytes) {
    const std::optional<QString> text = decodeWith(bytes, Encoding::Utf8);
    if (!text)
        return std::nullopt;
    return Result{*text, Encoding::Utf8, false};
}

CaptionDecoder::Result CaptionDecoder::decodeDetected(const QByteArray& bytes) {
    const QByteArray detected = uchardetName(bytes).toUpper();
    Encoding encoding = Encoding::Windows1252;
    for (const DetectedName& name : kDetectedNames) {
        if (detected == name.name)
            encoding = name.encoding;
    }
    // What uchardet names but no entry above covers (KOI8-R, TIS-620, ...) is read as
    // Windows-1252 when that reads every byte, and flagged either way.
    if (const std::optional<QString> text = decodeWith(bytes, encoding))
        return Result{*text, encoding, true};
    return Result{escapedBytes(bytes), Encoding::Undecoded, true};
}

CaptionDecoder::Result CaptionDecoder::decode(const QByteArray& bytes) {
    std::optional<Result> result = decodeMarked(bytes);
    if (!result)
        result = decodeUtf16WithoutMark(bytes);
    if (!result)
        result = decodeUtf8(bytes);
    if (!result)
        result = decodeDetected(bytes);
    if (repairText(&result->text))
        result->guessed = true;
    return *result;
}

bool CaptionDecoder::readFile(const QString& path, Result* result, QString* errorMessage,
                              const std::atomic<bool>* cancelRequested) {
    const UserFile::ReadResult read = UserFile::readAll(path, cancelRequested);
    *errorMessage = read.errorMessage;
    if (!read.succeeded())
        return false;
    *result = decode(read.bytes);
    return true;
}

QStringList CaptionDecoder::lines(const QString& text) {
    static const QRegularExpression lineBreak(QStringLiteral("\r\n|\n|\r"));
    QStringList lines = text.split(lineBreak);
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

QString CaptionDecoder::tidied(const QString& text) {
    QString result = text;
    result.replace(QLatin1String("\r\n"), QLatin1String("\n"));
    result.replace(QLatin1Char('\r'), QLatin1Char('\n'));
    return result.trimmed();
}

bool CaptionDecoder::repairText(QString* text) {
    const auto needsRepair = [](QChar c) {
        return c.isNull() || c.isSurrogate();
    };
    if (std::none_of(text->cbegin(), text->cend(), needsRepair))
        return false;
    QString repaired;
    repaired.reserve(text->size());
    bool changed = false;
    const qsizetype size = text->size();
    for (qsizetype at = 0; at < size; ++at) {
        const QChar c = text->at(at);
        if (c.isNull()) {
            qsizetype end = at;
            while (end < size && text->at(end).isNull())
                ++end;
            if (!repaired.isEmpty() && !repaired.back().isSpace() && end < size &&
                !text->at(end).isSpace())
                repaired.append(QLatin1Char(' '));
            at = end - 1;
            changed = true;
        } else if (c.isHighSurrogate() && at + 1 < size && text->at(at + 1).isLowSurrogate()) {
            repaired.append(c).append(text->at(at + 1));
            ++at;
        } else if (c.isSurrogate()) {
            repaired.append(QChar::ReplacementCharacter);
            changed = true;
        } else {
            repaired.append(c);
        }
    }
    *text = repaired;
    return changed;
}

QString CaptionDecoder::escapedBytes(const QByteArray& bytes) {
    QString text;
    text.reserve(bytes.size());
    for (const char byte : bytes) {
        const auto value = static_cast<unsigned char>(byte);
        const bool plain = (value >= 0x20 && value < 0x7F && value != '\\') || value == '\n' ||
                           value == '\r' || value == '\t';
        if (plain)
            text.append(QLatin1Char(byte));
        else
            text.append(QStringLiteral("\\x%1").arg(value, 2, 16, QLatin1Char('0')));
    }
    return text;
}

QByteArray CaptionDecoder::bytesFromEscaped(const QString& text) {
    QByteArray bytes;
    for (qsizetype at = 0; at < text.size(); ++at) {
        bool isHex = false;
        const int value = text.at(at) == QLatin1Char('\\') && text.mid(at + 1, 1) == u"x"
                              ? text.mid(at + 2, 2).toInt(&isHex, 16)
                              : 0;
        if (isHex) {
            bytes.append(static_cast<char>(value));
            at += 3;
        } else {
            bytes.append(text.at(at).toLatin1());
        }
    }
    return bytes;
}

QString CaptionDecoder::encodingKey(Encoding encoding) {
    const KnownEncoding* entry = known(encoding);
    return entry != nullptr ? QString::fromLatin1(entry->key) : QString();
}

CaptionDecoder::Encoding CaptionDecoder::encodingFromKey(const QString& key) {
    for (const KnownEncoding& entry : kEncodings) {
        if (key == QLatin1String(entry.key))
            return entry.encoding;
    }
    return Encoding::Invalid;
}

QString CaptionDecoder::encodingName(Encoding encoding) {
    const KnownEncoding* entry = known(encoding);
    return entry != nullptr ? QString::fromLatin1(entry->name) : QString();
}

QString CaptionDecoder::reencodedNote(Encoding encoding) {
    if (encoding == Encoding::Undecoded) {
        return tr("This caption's bytes are not text in any encoding Tuneframe knows, so they "
                  "were kept as they are: each byte outside plain ASCII is shown as \\xNN. "
                  "Retype the caption, then mark it as checked.");
    }
    return tr("Re-encoded from %1. Check that the caption reads correctly, then mark it as "
              "checked.")
        .arg(encodingName(encoding));
}

QString CaptionDecoder::checkNote(Encoding encoding, const QString& caption) {
    if (encoding == Encoding::Undecoded)
        return reencodedNote(encoding);
    if (caption.contains(QChar::ReplacementCharacter)) {
        return tr("Parts of this caption were not valid text and are marked with �. Retype "
                  "them, then mark the caption as checked.");
    }
    // Declared UTF-8 is flagged only for what the import changed or found.
    if (encoding == Encoding::Utf8 || encoding == Encoding::Utf8WithBom) {
        return tr("This caption was flagged when it was imported: characters in it that are "
                  "not text (NUL) were replaced with spaces, or it was too long to edit. Check "
                  "that it reads correctly, then mark it as checked.");
    }
    return reencodedNote(encoding);
}
