#pragma once

#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <atomic>

// Turns the bytes of a caption file (a .txt next to a clip, prompt.txt, a CSV or JSONL file)
// into text. A byte order mark decides when there is one; otherwise valid UTF-8 is UTF-8, and
// anything else is a guess between GB18030 and Windows-1252 (Latin-1 with typographic quotes)
// that the user is asked to check.
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
        Windows1252,
    };

    struct Result {
        QString text;
        Encoding encoding = Encoding::Invalid;
        // The encoding was inferred from the bytes rather than declared, or some bytes did not
        // decode: the text may be wrong and the user should look at it.
        bool guessed = false;
    };

    static Result decode(const QByteArray& bytes);
    // Reads and decodes a whole file, only when it is a regular file (UserFile), within
    // UserFile's deadline. On failure returns false with *errorMessage naming the file and what
    // to check; when cancelled, false with *errorMessage empty.
    static bool readFile(const QString& path, Result* result, QString* errorMessage,
                         const std::atomic<bool>* cancelRequested = nullptr);
    // text split at line breaks (\n, \r\n), without the empty lines after the last one.
    static QStringList lines(const QString& text);
    // A caption as stored: line breaks as \n, no surrounding white space.
    static QString tidied(const QString& text);

    // Stable names for the database ("utf-8", "gb18030", ...); empty for Invalid.
    static QString encodingKey(Encoding encoding);
    static Encoding encodingFromKey(const QString& key);
    // As people know them: "UTF-8", "GB18030", "Windows-1252 (Latin-1)".
    static QString encodingName(Encoding encoding);
    // The note shown on a caption whose encoding was guessed.
    static QString reencodedNote(Encoding encoding);

private:
    static bool looksLikeGb18030(const QByteArray& bytes);
    static Result decodeWith(const QByteArray& bytes, const char* name, Encoding encoding);
};
