#pragma once

#include <QMetaType>
#include <QSize>
#include <QString>

// What the player knows about a clip once it is open: enough to size the view, the scrub bar
// and the clock.
struct PlaybackClipInfo {
    QString path;
    int frameCount = 0;
    // The clip's average rate; PlaybackEngine falls back to a default when the file has none.
    double framesPerSecond = 0.0;
    QSize frameSize; // as displayed, rotation applied
    double durationSeconds = 0.0;
};

Q_DECLARE_METATYPE(PlaybackClipInfo)
