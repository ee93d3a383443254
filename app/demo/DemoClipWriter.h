#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <atomic>

// Writes the demo clips of DemoClipCatalog into a folder: each animation as an H.264 MP4
// (media's atomic VideoWriter) and its caption as a same-name .txt. It lives on a worker
// QThread; DemoProjectBuilder starts it and hears back by signals.
class DemoClipWriter : public QObject {
    Q_OBJECT

public:
    explicit DemoClipWriter(QObject* parent = nullptr);

    // Safe from any thread: the run in progress stops after its current frame, emitting nothing
    // more. The next writeClips() starts afresh.
    void requestCancel();

public slots:
    // runId comes back with every signal, so the caller can tell runs apart.
    void writeClips(const QString& folder, quint64 runId);

signals:
    void clipWritten(int written, int total, const QString& videoPath, quint64 runId);
    void clipsWritten(const QStringList& videoPaths, quint64 runId);
    void clipsFailed(const QString& message, quint64 runId);

private:
    // Returns an error message, empty on success.
    QString writeVideo(const QString& path, int clipIndex);
    static QString writeCaption(const QString& path, const QString& caption);

    std::atomic<bool> m_cancelRequested{false};
};
