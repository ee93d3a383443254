#pragma once

#include <QCoreApplication>
#include <QString>

// How much of a caption the studio lays out. A caption is one block of text, and Qt lays out a
// block whole: a line of megabytes without a space takes minutes, during which the window does
// not answer. So the caption editor edits captions up to kEditableLength characters and shows
// only the start of a longer one (with a notice and a way to shorten it); lists and tool tips
// show kPreviewLength; an import flags a caption past kEditableLength with its length. No text
// encoder reads more than a few hundred tokens, so a caption that long is almost certainly the
// wrong file.
class CaptionLength {
    Q_DECLARE_TR_FUNCTIONS(CaptionLength)

public:
    static constexpr qsizetype kEditableLength = 10000;
    static constexpr qsizetype kPreviewLength = 300;

    static bool isLong(const QString& caption) { return caption.size() > kEditableLength; }
    // The first `length` characters of caption, never half of a surrogate pair.
    static QString head(const QString& caption, qsizetype length);
    // As head(), with "…" when something was cut.
    static QString preview(const QString& caption, qsizetype length = kPreviewLength);
    // The notice the editor shows above a long caption's start.
    static QString editorNote(qsizetype length);
    // The import report's line for a long caption of the clip at path, read from source.
    static QString importNote(const QString& path, const QString& source, qsizetype length);
};
