#include "app/CaptionDecoder.h"

#include "app/UserFile.h"

#include <QStringDecoder>

namespace {

struct KnownEncoding {
    CaptionDecoder::Encoding encoding;
    const char* key;
    const char* name;
};

constexpr KnownEncoding kEncodings[] = {
    {CaptionDecoder::Encoding::Utf8, "utf-8", "UTF-8"},
    {CaptionDecoder::Encoding::Utf8WithBom, "utf-8-bom", "UTF-8"},
    {CaptionDecoder::Encoding::Utf16LittleEndian, "utf-16le", "UTF-16LE"},
    {CaptionDecoder::Encoding::Utf16BigEndian, "utf-16be", "UTF-16BE"},
    {CaptionDecoder::Encoding::Gb18030, "gb18030", "GB18030"},
    {CaptionDecoder::Encoding::Windows1252, "windows-1252", "Windows-1252 (Latin-1)"},
};

bool startsWith(const QByteArray& bytes, const char* prefix, int length) {
    return bytes.size() >= length && std::equal(prefix, prefix + length, bytes.constBegin());
}

} // namespace

CaptionDecoder::Result CaptionDecoder::decodeWith(const QByteArray& bytes, const char* name,
                                                  Encoding encoding) {
    QStringDecoder decoder(name, QStringConverter::Flag::Stateless);
    Result result;
    result.encoding = encoding;
    if (!decoder.isValid()) {
        // Qt built without ICU knows no GB18030 or Windows-1252; Latin-1 never fails.
        result.text = QString::fromLatin1(bytes);
        result.encoding = Encoding::Windows1252;
        result.guessed = true;
        return result;
    }
    result.text = decoder.decode(bytes);
    result.guessed = decoder.hasError();
    return result;
}

CaptionDecoder::Result CaptionDecoder::decode(const QByteArray& bytes) {
    Result result;
    if (startsWith(bytes, "\xEF\xBB\xBF", 3)) {
        QStringDecoder decoder(QStringConverter::Utf8, QStringConverter::Flag::Stateless);
        result.text = decoder.decode(bytes.mid(3));
        result.encoding = Encoding::Utf8WithBom;
        result.guessed = decoder.hasError();
        return result;
    }
    if (startsWith(bytes, "\xFF\xFE", 2) || startsWith(bytes, "\xFE\xFF", 2)) {
        const bool little = bytes.at(0) == '\xFF';
        QStringDecoder decoder(little ? QStringConverter::Utf16LE : QStringConverter::Utf16BE,
                               QStringConverter::Flag::Stateless);
        result.text = decoder.decode(bytes.mid(2));
        result.encoding = little ? Encoding::Utf16LittleEndian : Encoding::Utf16BigEndian;
        // Qt drops a dangling last byte without reporting it.
        result.guessed = decoder.hasError() || bytes.size() % 2 != 0;
        return result;
    }
    // UTF-16 saved without a mark: ASCII text leaves every other byte zero.
    if (bytes.size() >= 4 && bytes.size() % 2 == 0 && bytes.contains('\0')) {
        int zeroEven = 0;
        int zeroOdd = 0;
        for (int at = 0; at < bytes.size(); ++at) {
            if (bytes.at(at) == '\0')
                ++(at % 2 == 0 ? zeroEven : zeroOdd);
        }
        if (zeroEven != zeroOdd) {
            const bool little = zeroOdd > zeroEven;
            QStringDecoder decoder(little ? QStringConverter::Utf16LE : QStringConverter::Utf16BE,
                                   QStringConverter::Flag::Stateless);
            result.text = decoder.decode(bytes);
            result.encoding = little ? Encoding::Utf16LittleEndian : Encoding::Utf16BigEndian;
            result.guessed = true;
            return result;
        }
    }
    QStringDecoder utf8(QStringConverter::Utf8, QStringConverter::Flag::Stateless);
    result.text = utf8.decode(bytes);
    if (!utf8.hasError()) {
        result.encoding = Encoding::Utf8;
        return result;
    }
    if (looksLikeGb18030(bytes)) {
        Result chinese = decodeWith(bytes, "GB18030", Encoding::Gb18030);
        if (chinese.encoding == Encoding::Gb18030 && !chinese.guessed) {
            chinese.guessed = true;
            return chinese;
        }
    }
    result = decodeWith(bytes, "windows-1252", Encoding::Windows1252);
    result.guessed = true;
    return result;
}

// GB2312 text, the bulk of GB18030 in practice, pairs two bytes of 0xA1 and above for each
// character. Latin-1 text has lone high bytes between ASCII letters, which GB18030 would have
// to pair with an ASCII byte. Whichever pairing dominates decides.
bool CaptionDecoder::looksLikeGb18030(const QByteArray& bytes) {
    int highPairs = 0;
    int asciiPairs = 0;
    int at = 0;
    while (at < bytes.size()) {
        const auto lead = static_cast<unsigned char>(bytes.at(at));
        if (lead < 0x80) {
            ++at;
            continue;
        }
        if (lead == 0x80 || lead == 0xFF || at + 1 >= bytes.size())
            return false;
        const auto trail = static_cast<unsigned char>(bytes.at(at + 1));
        if (trail >= 0x30 && trail <= 0x39) {
            at += 4;
            continue;
        }
        if (trail >= 0x80)
            ++highPairs;
        else
            ++asciiPairs;
        at += 2;
    }
    return highPairs > asciiPairs;
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
    QStringList lines = text.split(QLatin1Char('\n'));
    for (QString& line : lines) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
    }
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

QString CaptionDecoder::encodingKey(Encoding encoding) {
    for (const KnownEncoding& known : kEncodings) {
        if (known.encoding == encoding)
            return QString::fromLatin1(known.key);
    }
    return QString();
}

CaptionDecoder::Encoding CaptionDecoder::encodingFromKey(const QString& key) {
    for (const KnownEncoding& known : kEncodings) {
        if (key == QLatin1String(known.key))
            return known.encoding;
    }
    return Encoding::Invalid;
}

QString CaptionDecoder::encodingName(Encoding encoding) {
    for (const KnownEncoding& known : kEncodings) {
        if (known.encoding == encoding)
            return QString::fromLatin1(known.name);
    }
    return QString();
}

QString CaptionDecoder::reencodedNote(Encoding encoding) {
    return tr("Re-encoded from %1. Check that the caption reads correctly, then mark it as "
              "checked.")
        .arg(encodingName(encoding));
}
