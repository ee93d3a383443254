#pragma once

#include "app/dataset/ClipRecord.h"

#include <QCoreApplication>
#include <QString>

class Project;

// Image-to-video conditions as pictures: the frame each clip is conditioned on (the one the
// user chose, or the first used) written as <project>/conditions/clip-<id>-frame-<n>.png, so
// validation prompts of an image-to-video run have images, and people can see what was chosen.
class ConditionImages {
    Q_DECLARE_TR_FUNCTIONS(ConditionImages)

public:
    // The frame that conditions clip: its chosen one, else the first frame it uses.
    static qint64 frameOf(const ClipRecord& clip);
    static QString pathFor(const Project& project, const ClipRecord& clip);
    // Decodes the frame at the clip's full size and writes the PNG atomically (once; an
    // existing file is kept). Returns its path, or empty with error set.
    static QString write(const Project& project, const ClipRecord& clip, QString* error);
    // Whether the pipeline folder holds an image-to-video transformer (its input channels are
    // twice the VAE's latent channels, as the engine decides).
    static bool isImageToVideoModel(const QString& modelFolder);
};
