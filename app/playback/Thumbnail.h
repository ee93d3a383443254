#pragma once

#include <QImage>
#include <QMetaType>
#include <QString>

// A clip's preview picture as ThumbnailCache hands it out. For a clip that cannot be decoded
// the image is a placeholder and failed is set, so views draw something and can say why.
struct Thumbnail {
    QImage image;
    bool failed = false;
    QString errorMessage; // the media error's message when failed

    bool isNull() const { return image.isNull(); }
};

Q_DECLARE_METATYPE(Thumbnail)
