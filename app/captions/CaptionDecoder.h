#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <atomic>
#include <optional>

// Turns the bytes of a caption file (a .txt next to a clip, prompt.txt, a CSV or JSONL file)
// into text, with libraries rather than guesses of our own: a byte order mark decides when
// there is one (Qt); ICU's detector recognises UTF-16 saved without one; valid UTF-8 is UTF-8
// (stray NUL bytes do not make it UTF-16); anything else is named by uchardet and decoded by
// Qt's ICU codecs. Text no decoder reads cleanly is not replaced with U+FFFD: it is kept as its
// bytes (escapedBytes) and flagged. Text that decodes but is no valid caption is repaired and
// flagged (repairText): a NUL becomes a space, never gluing two words together, and an
// unpaired UTF-16 surrogate becomes U+FFFD, so what the project stores is valid UTF-8 that any
// SQLite reader takes.
class CaptionDecoder {
    Q_DECLARE_TR_FUNCTIONS(CaptionDecoder)

public:
    enum class Encoding {
        Invalid,
        Utf8,
        Utf8WithBom,
        Utf16LittleEndian,
        Utf16BigEndian,
        Gb18030,
        Big5,
        ShiftJis,
        EucKr,
        Windows1251,
        Windows1252,
        // No decoder read the bytes cleanly: the text is escapedBytes() of them.
        Undecoded,
    };

    // ICU's confidence (0 to 100) from which text without a byte order mark is taken as
    // UTF-16; below it, NUL bytes are strays in single-byte text.
    static constexpr int kUtf16Confidence = 60;

    struct Result {
        QString text;
        Encoding encoding = Encoding::Invalid;
        // The encoding was inferred from the bytes rather than declared, the text was
        // repaired (repairText), or nothing decoded the bytes: the user should look at it.
        bool guessed = false;
    };

    static Result decode(const QByteArray& bytes);
    // Reads and decodes a whole file, only when it is a regular file (UserFile), within
    // UserFile's deadline. On failure returns false with *errorMessage naming the file and what
    // to check; when cancelled, false with *errorMessage empty.
    static bool readFile(const QString& path, Result* result, QString* errorMessage,
                         const std::atomic<bool>* cancelRequested = nullptr);
    // text split at line breaks (\r\n, \n or \r, mixed as they come), without the empty lines
    // after the last one.
    static QStringList lines(const QString& text);
    // A caption as stored: line breaks as \n, no surrounding white space.
    static QString tidied(const QString& text);
    // Makes text a caption can hold; true when it changed anything. NUL is no text, but where
    // one stands between two words it separated them (C strings joined, fixed-width fields), so
    // each run of NULs becomes one space, or nothing next to white space or at either end.
    // Each unpaired surrogate (from broken UTF-16, or a JSON "\ud800") becomes U+FFFD, marking
    // where something was lost.
    static bool repairText(QString* text);

    // Bytes no decoder reads, as text that keeps every one of them: printable ASCII as itself
    // (line breaks and tabs too), every other byte and the backslash as \xNN. Lossless:
    // bytesFromEscaped() gives the bytes back.
    static QString escapedBytes(const QByteArray& bytes);
    static QByteArray bytesFromEscaped(const QString& text);

    // Stable names for the database ("utf-8", "gb18030", ...); empty for Invalid.
    static QString encodingKey(Encoding encoding);
    static Encoding encodingFromKey(const QString& key);
    // As people know them: "UTF-8", "GB18030", "Windows-1252 (Latin-1)".
    static QString encodingName(Encoding encoding);
    // The note shown on a caption whose encoding was guessed or that could not be decoded.
    static QString reencodedNote(Encoding encoding);
    // The note shown on a flagged caption (its file read as encoding; caption as it reads
    // now): what the text still shows (undecoded bytes, U+FFFD), else why it was flagged.
    static QString checkNote(Encoding encoding, const QString& caption);

private:
    static std::optional<Result> decodeMarked(const QByteArray& bytes);
    static std::optional<Result> decodeUtf16WithoutMark(const QByteArray& bytes);
    static std::optional<Result> decodeUtf8(const QByteArray& bytes);
    static Result decodeDetected(const QByteArray& bytes);
    // Decodes all of bytes with encoding's codec; nullopt when any byte does not decode.
    static std::optional<QString> decodeWith(const QByteArray& bytes, Encoding encoding);
};
