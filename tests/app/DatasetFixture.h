#pragma once

#include "app/dataset/ClipRecord.h"
#include "app/project/Project.h"

#include <QByteArray>
#include <QString>
#include <QVector>

#include <memory>

// Files the dataset tests import, made at test time: small H.264 clips through media's
// VideoWriter (each seed gives different pixels, so different content hashes), PNG stills,
// and caption files in any encoding.
class DatasetFixture {
public:
    static constexpr int kWidth = 64;
    static constexpr int kHeight = 48;

    // An MP4 of frameCount frames; noise makes the file large enough that half of it still
    // holds whole frames (for truncation tests). Returns an error message, empty on success.
    static QString writeVideo(const QString& path, int frameCount, int seed, int width = kWidth,
                              int height = kHeight, bool noise = false);
    static bool writeImage(const QString& path, int seed, int width = 8, int height = 8);
    static bool writeBytes(const QString& path, const QByteArray& bytes);
    static QByteArray readBytes(const QString& path);
    // The first half of source's bytes, written to path.
    static bool writeFirstHalf(const QString& source, const QString& path);

    static std::unique_ptr<Project> createProject(const QString& folder);
    static std::unique_ptr<Project> openProject(const QString& folder);

    // A record as an import would store it, for a file that need not exist:
    // /data/clip-N.mp4, 720x480, 100 frames at 25 fps, caption "caption N".
    static ClipRecord syntheticClip(int index);
    // The record an import stores for a writeVideo clip at path (kWidth x kHeight, frameCount
    // frames, content hashed), accepted with this caption; index as for syntheticClip.
    static ClipRecord acceptedVideo(const QString& path, int index, int frameCount,
                                    const QString& caption);
    // Stores records through ClipStore; returns their ids in order (empty on failure).
    static QVector<qint64> store(const Project& project, const QVector<ClipRecord>& records);

    // Every row of the curation tables as text, for "nothing changed" comparisons.
    static QString databaseSnapshot(const Project& project);
};
