#pragma once

#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>
#include <QVector>

// Writes captions back to same-name .txt files next to their clips, on request only: UTF-8
// without a byte order mark, each file through QSaveFile (temporary file, fsync, rename), so a
// crash leaves the old caption or the new one, never half of one. Clips themselves are never
// touched. Two clips that would share one .txt (a.mp4 and a.mov) are both skipped.
class CaptionWriter {
    Q_DECLARE_TR_FUNCTIONS(CaptionWriter)

public:
    struct Report {
        int written = 0;
        int unchanged = 0; // the file already held that caption
        QStringList writtenFiles;
        QStringList problems; // one sentence per clip skipped, naming the file and the fix

        bool succeeded() const { return problems.isEmpty(); }
    };

    static Report writeNextToClips(const QVector<ClipRecord>& clips);
};
