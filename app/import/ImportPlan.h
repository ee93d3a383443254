#pragma once

#include "app/captions/CaptionDecoder.h"
#include "app/captions/CaptionLength.h"

#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

// One file an import will examine, with what its source said about it.
struct ImportItem {
    QString path; // absolute and clean
    bool hasCaption = false;
    QString caption;
    QString captionSource; // the file, and line or row, the caption came from
    CaptionDecoder::Encoding captionEncoding = CaptionDecoder::Encoding::Invalid;
    bool captionNeedsCheck = false;
    qint64 trimIn = 0;
    std::optional<qint64> trimOut;

    // The caption `text`, found at `source` (a file, or "file:line") in a file the decoder read
    // as `decoded`: repaired (a JSON string may hold NUL or half a surrogate pair) and tidied,
    // and flagged for a look when its encoding was guessed, it was repaired, or it is longer
    // than the editor edits.
    void setCaption(const QString& text, const QString& source,
                    const CaptionDecoder::Result& decoded) {
        QString repaired = text;
        const bool wasRepaired = CaptionDecoder::repairText(&repaired);
        hasCaption = true;
        caption = CaptionDecoder::tidied(repaired);
        captionSource = source;
        captionEncoding = decoded.encoding;
        captionNeedsCheck = decoded.guessed || wasRepaired || CaptionLength::isLong(caption);
    }
};

// What the import sources found before any file is opened: the items, sources refused as a
// whole (errors), and files left out with the reason (notes). Both lists are shown to the user
// in the import report, so nothing is skipped without a word.
struct ImportPlan {
    QVector<ImportItem> items;
    QStringList errors;
    QStringList notes;
};
