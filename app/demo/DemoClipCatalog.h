#pragma once

#include <QImage>
#include <QList>
#include <QString>

// The clips of the embedded demo project: short procedural animations (a bouncing ball, a
// rotating square, a sunrise, …) in a few sizes and frame rates, so that every part of the
// studio, bucket preview included, has something to show without downloading anything.
// Frames are pure functions of (clip, frame index): the same clips come out every time.
class DemoClipCatalog {
public:
    enum class Scene {
        None,
        BouncingBall,
        RotatingSquare,
        SlidingTriangle,
        Sunrise,
        ExpandingRings,
        SpinningStar,
        ScrollingCheckerboard,
        Snowfall,
    };

    struct Clip {
        Scene scene = Scene::None;
        QString baseName; // file name without extension, "01-red-ball-bounce"
        // Training captions stay English, the language of the text encoder.
        QString caption;
        int width = 0;
        int height = 0;
        int frameCount = 0;
        int framesPerSecond = 0;
    };

    // Starts every caption, so a LoRA trained on the demo learns it as the subject's name.
    static const QString kTriggerWord;

    static QList<Clip> clips();
    // Frame frameIndex of clip, width x height, RGB888.
    static QImage renderFrame(const Clip& clip, int frameIndex);
};
