#pragma once

#include <QCoreApplication>
#include <QString>
#include <QVector>

// The clips the engine's `prepare` left out of a run (too short for the frames it trains, no
// bucket fits, unreadable, ...), as it recorded them in the run's prepared.jsonl, so the studio
// can name them instead of leaving them in a log.
class PreparedSkips {
    Q_DECLARE_TR_FUNCTIONS(PreparedSkips)

public:
    struct Clip {
        QString path;    // absolute; empty for a manifest line that named no file
        QString reason;  // the engine's stable name: "too_short", "corrupt", ...
        QString message; // the engine's own words (English)
    };

    // In manifest order. Empty, without an error, while the run has not been prepared.
    static QVector<Clip> read(const QString& runFolder, QString* error);
    // What `reason` means to a user, in a few words; the engine's message for one it does not
    // know.
    static QString reasonText(const Clip& clip);
};
