#pragma once

#include <QImage>
#include <QString>

// The disk side of ThumbnailCache: one JPEG per (content hash, size) in a folder, and a marker
// file per content hash that media cannot decode. It holds no state but the folder, so worker
// threads use it side by side.
//   <folder>/<key>-<size>.jpg   the thumbnail, longest side size pixels
//   <folder>/<key>.failed       why the clip cannot be thumbnailed (UTF-8 text)
class ThumbnailStore {
public:
    // Where in a clip the preview is taken: past a fade-in, yet inside the shortest clips.
    static constexpr double kPreviewTimeSeconds = 1.0;
    static constexpr int kJpegQuality = 90;

    struct Outcome {
        QImage image;         // null when failed
        QString errorMessage; // set when failed
        bool decoded = false; // the video was opened (not served from a file)
    };

    explicit ThumbnailStore(const QString& folder);

    QString folder() const;
    QString imagePath(const QString& key, int size) const;
    QString failurePath(const QString& key) const;

    // A stored thumbnail or a stored failure when there is one; otherwise decodes videoPath and
    // stores what it got. Damaged, empty and unsupported files leave a failure marker, because
    // the same content fails the same way; a missing or unreadable file is not remembered,
    // since it may be back later.
    Outcome produce(const QString& key, const QString& videoPath, int size) const;

    void removeFailure(const QString& key) const;

    // Keys are content hashes; anything else could name a path outside the folder.
    static bool isValidKey(const QString& key);

private:
    bool saveImage(const QImage& image, const QString& path) const;
    void saveFailure(const QString& key, const QString& message) const;

    QString m_folder;
};
