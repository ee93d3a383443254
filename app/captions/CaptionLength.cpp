#include "app/captions/CaptionLength.h"

#include <QDir>
#include <QLocale>

QString CaptionLength::head(const QString& caption, qsizetype length) {
    if (caption.size() <= length)
        return caption;
    if (length > 0 && caption.at(length - 1).isHighSurrogate())
        --length;
    return caption.left(length);
}

QString CaptionLength::preview(const QString& caption, qsizetype length) {
    if (caption.size() <= length)
        return caption;
    return head(caption, length) + QStringLiteral("…");
}

QString CaptionLength::editorNote(qsizetype length) {
    const QLocale locale;
    return tr("This caption is %1 characters long, too long to edit here: only its first %2 "
              "are shown, and no text encoder reads that far. Shorten it to edit it.")
        .arg(locale.toString(static_cast<qint64>(length)),
             locale.toString(static_cast<qint64>(kEditableLength)));
}

QString CaptionLength::importNote(const QString& path, const QString& source, qsizetype length) {
    const QLocale locale;
    return tr("The caption of “%1” (from “%2”) is %3 characters long, more than the %4 the "
              "caption editor shows. It was imported and flagged: check that the right file "
              "was read, then shorten it in the clip's caption editor.")
        .arg(QDir::toNativeSeparators(path), QDir::toNativeSeparators(source),
             locale.toString(static_cast<qint64>(length)),
             locale.toString(static_cast<qint64>(kEditableLength)));
}
