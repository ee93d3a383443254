#pragma once

#include "app/captions/CaptionHistory.h"
#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QString>
#include <QVector>

// Caption edits over a selection, in two steps: preview*() computes the before and after of
// every caption that would change, for the user to look over; CaptionHistory::apply() then
// writes them in one transaction as one undoable step, and refuses if a caption changed since.
class BulkCaptionEdit {
    Q_DECLARE_TR_FUNCTIONS(BulkCaptionEdit)

public:
    struct FindReplace {
        QString find;
        QString replacement; // with regularExpression, \1 … \9 insert captured groups
        bool regularExpression = false;
        bool caseSensitive = true;
    };

    enum class TriggerPosition { Invalid, Prefix, Suffix };

    // Changes for every clip whose caption contains find. An empty or invalid pattern is an
    // error (*error set, empty result).
    static QVector<CaptionHistory::Change>
    previewReplace(const QVector<ClipRecord>& clips, const FindReplace& replace, QString* error);
    // word (an id token such as "sks") before or after each caption, separated by a space.
    // Captions already holding word as a whole word are left alone, so adding twice is a no-op.
    static QVector<CaptionHistory::Change> previewTriggerWord(const QVector<ClipRecord>& clips,
                                                              const QString& word,
                                                              TriggerPosition position,
                                                              QString* error);
    static bool containsWord(const QString& caption, const QString& word);
};
