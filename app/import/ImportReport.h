#pragma once

#include <QCoreApplication>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

// What an import did, for the report the user reads afterwards and for views to refresh.
class ImportReport {
    Q_DECLARE_TR_FUNCTIONS(ImportReport)

public:
    int total = 0;     // files the sources listed
    int processed = 0; // files examined and stored before the end or a cancel
    int added = 0;
    int refreshed = 0; // known paths whose file had changed
    int unchanged = 0; // already in the project as they are
    int duplicates = 0;
    int flagged = 0;         // added or refreshed with a problem
    int captionsToCheck = 0; // added with a caption flagged for a look (CaptionDecoder)
    bool cancelled = false;
    QStringList errors; // sources refused as a whole, database failures
    QStringList notes;  // files left out and why
    QVector<qint64> changedClipIds;

    bool succeeded() const { return errors.isEmpty() && !cancelled; }
    // One paragraph: counts, then whether it was cancelled.
    QString summary() const;
};

Q_DECLARE_METATYPE(ImportReport)
