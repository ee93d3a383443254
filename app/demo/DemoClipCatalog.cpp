#include "app/demo/DemoClipCatalog.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>
#include <QRadialGradient>

#include <cmath>
#include <cstdint>

const QString DemoClipCatalog::kTriggerWord = QStringLiteral("tfdemo");

namespace {

constexpr double kPi = 3.14159265358979323846;

// A fixed linear congruential generator: scattered stars and snowflakes land in the same
// places on every machine and every run, unlike std::rand or QRandomGenerator's seeding.
class Scatter {
public:
    explicit Scatter(std::uint32_t seed)
        : m_state(seed) {}
    double next() {
        m_state = m_state * 1664525u + 1013904223u;
        return static_cast<double>(m_state >> 8) / static_cast<double>(1u << 24);
    }

private:
    std::uint32_t m_state;
};

void drawBouncingBall(QPainter& painter, double width, double height, double t) {
    const double floorY = height * 0.8;
    painter.fillRect(QRectF(0, 0, width, floorY), QColor(200, 224, 240));
    painter.fillRect(QRectF(0, floorY, width, height - floorY), QColor(150, 100, 60));
    const double radius = height * 0.09;
    const double x = radius * 2 + (width - radius * 4) * t;
    // Two bounces over the clip: |sin| makes the floor contacts sharp, as a real bounce is.
    const double lift = std::abs(std::sin(kPi * 2.0 * t)) * height * 0.5;
    const double y = floorY - radius - lift;
    const double shadowScale = 1.0 - lift / (height * 0.8);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(0, 0, 0, 70));
    painter.drawEllipse(QPointF(x, floorY + 3), radius * shadowScale * 1.2,
                        radius * 0.25 * shadowScale);
    QRadialGradient shading(QPointF(x - radius * 0.35, y - radius * 0.35), radius * 1.3);
    shading.setColorAt(0.0, QColor(255, 150, 150));
    shading.setColorAt(0.4, QColor(220, 30, 30));
    shading.setColorAt(1.0, QColor(120, 0, 0));
    painter.setBrush(shading);
    painter.drawEllipse(QPointF(x, y), radius, radius);
}

void drawRotatingSquare(QPainter& painter, double width, double height, double t) {
    painter.fillRect(QRectF(0, 0, width, height), QColor(245, 245, 245));
    const double side = std::min(width, height) * 0.4;
    painter.translate(width / 2, height / 2);
    painter.rotate(180.0 * t);
    painter.setPen(QPen(QColor(10, 30, 110), 3));
    painter.setBrush(QColor(40, 90, 220));
    painter.drawRect(QRectF(-side / 2, -side / 2, side, side));
    // A square looks the same every quarter turn; the marked corner shows it turning.
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(255, 210, 40));
    painter.drawEllipse(QPointF(-side / 2 + side * 0.15, -side / 2 + side * 0.15), side * 0.08,
                        side * 0.08);
}

void drawSlidingTriangle(QPainter& painter, double width, double height, double t) {
    const double floorY = height * 0.75;
    painter.fillRect(QRectF(0, 0, width, floorY), QColor(230, 230, 225));
    painter.fillRect(QRectF(0, floorY, width, height - floorY), QColor(180, 180, 175));
    const double side = height * 0.35;
    const double x = side * 0.6 + (width - side * 1.2) * t;
    const QPointF points[] = {QPointF(x - side / 2, floorY), QPointF(x + side / 2, floorY),
                              QPointF(x, floorY - side * 0.87)};
    painter.setPen(QPen(QColor(20, 90, 30), 2));
    painter.setBrush(QColor(50, 180, 70));
    painter.drawPolygon(points, 3);
}

void drawSunrise(QPainter& painter, double width, double height, double t) {
    QLinearGradient sky(0, 0, 0, height);
    sky.setColorAt(0.0, QColor::fromHsvF(0.75 - 0.1 * t, 0.6, 0.25 + 0.45 * t));
    sky.setColorAt(1.0, QColor::fromHsvF(0.08, 0.7, 0.55 + 0.45 * t));
    painter.fillRect(QRectF(0, 0, width, height), sky);
    const double radius = height * 0.12;
    const QPointF sun(width * 0.6, height * (0.9 - 0.55 * t));
    QRadialGradient glow(sun, radius * 2.5);
    glow.setColorAt(0.0, QColor(255, 240, 180, 200));
    glow.setColorAt(1.0, QColor(255, 200, 120, 0));
    painter.setPen(Qt::NoPen);
    painter.setBrush(glow);
    painter.drawEllipse(sun, radius * 2.5, radius * 2.5);
    painter.setBrush(QColor(255, 225, 90));
    painter.drawEllipse(sun, radius, radius);
    painter.setBrush(QColor(30, 40, 30));
    painter.drawEllipse(QPointF(width * 0.35, height * 1.35), width * 0.9, height * 0.65);
}

void drawExpandingRings(QPainter& painter, double width, double height, double t) {
    painter.fillRect(QRectF(0, 0, width, height), QColor(15, 20, 50));
    const double maximumRadius = std::hypot(width, height) / 2;
    painter.setBrush(Qt::NoBrush);
    for (int ring = 0; ring < 4; ++ring) {
        // Rings are a quarter apart; moving 0.7 of the way keeps first and last frames apart.
        const double phase = std::fmod(t * 0.7 + ring * 0.25, 1.0);
        QColor colour = QColor::fromHsvF(0.08 - 0.06 * phase, 0.9, 1.0);
        colour.setAlphaF(1.0 - phase);
        painter.setPen(QPen(colour, 6));
        painter.drawEllipse(QPointF(width / 2, height / 2), phase * maximumRadius,
                            phase * maximumRadius);
    }
}

void drawSpinningStar(QPainter& painter, double width, double height, double t) {
    painter.fillRect(QRectF(0, 0, width, height), QColor(10, 12, 35));
    Scatter scatter(7);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(220, 220, 255));
    for (int dot = 0; dot < 40; ++dot) {
        const double x = scatter.next() * width;
        const double y = scatter.next() * height;
        painter.drawEllipse(QPointF(x, y), 1.0, 1.0);
    }
    const double outer = height * 0.2;
    const double inner = outer * 0.45;
    QPainterPath star;
    for (int point = 0; point < 10; ++point) {
        const double radius = point % 2 == 0 ? outer : inner;
        const double angle = -kPi / 2 + point * kPi / 5;
        const QPointF at(radius * std::cos(angle), radius * std::sin(angle));
        if (point == 0)
            star.moveTo(at);
        else
            star.lineTo(at);
    }
    star.closeSubpath();
    painter.translate(width / 2, height * (0.7 - 0.4 * t));
    painter.rotate(360.0 * t);
    painter.setPen(QPen(QColor(200, 140, 0), 2));
    painter.setBrush(QColor(255, 215, 0));
    painter.drawPath(star);
}

void drawScrollingCheckerboard(QPainter& painter, double width, double height, double t) {
    const int cell = 32;
    // Not whole cells, nor the same in both directions: a board moved by a whole cell diagonally
    // looks unmoved.
    const double offsetX = t * cell * 1.5;
    const double offsetY = t * cell * 0.75;
    painter.fillRect(QRectF(0, 0, width, height), Qt::white);
    for (int row = -2; row * cell < height + cell; ++row) {
        for (int column = -2; column * cell < width + cell; ++column) {
            if ((row + column) % 2 != 0)
                continue;
            painter.fillRect(QRectF(column * cell + offsetX, row * cell + offsetY, cell, cell),
                             Qt::black);
        }
    }
}

void drawSnowfall(QPainter& painter, double width, double height, double t) {
    QLinearGradient sky(0, 0, 0, height);
    sky.setColorAt(0.0, QColor(10, 20, 60));
    sky.setColorAt(1.0, QColor(40, 60, 110));
    painter.fillRect(QRectF(0, 0, width, height), sky);
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(235, 240, 250));
    painter.drawRect(QRectF(0, height * 0.85, width, height * 0.15));
    Scatter scatter(2024);
    for (int flake = 0; flake < 70; ++flake) {
        const double x0 = scatter.next() * width;
        const double y0 = scatter.next() * height;
        const double fall = (0.3 + 0.5 * scatter.next()) * height;
        const double radius = 1.0 + 2.0 * scatter.next();
        const double y = std::fmod(y0 + fall * t, height);
        const double x = x0 + 6.0 * std::sin(2 * kPi * (t + y0 / height));
        painter.drawEllipse(QPointF(x, y), radius, radius);
    }
}

} // namespace

QList<DemoClipCatalog::Clip> DemoClipCatalog::clips() {
    const QString t = kTriggerWord;
    return {
        {Scene::BouncingBall, QStringLiteral("01-red-ball-bounce"),
         t + QStringLiteral(", a glossy red ball bouncing across a wooden floor in front of a "
                            "pale blue wall, static camera"),
         320, 240, 49, 24},
        {Scene::RotatingSquare, QStringLiteral("02-blue-square-rotate"),
         t + QStringLiteral(", a blue square with a yellow dot in one corner turning slowly in "
                            "the middle of a white background"),
         256, 256, 49, 24},
        {Scene::SlidingTriangle, QStringLiteral("03-green-triangle-slide"),
         t + QStringLiteral(", a green triangle sliding from left to right along a grey floor"),
         352, 240, 33, 16},
        {Scene::Sunrise, QStringLiteral("04-sunrise-sky"),
         t + QStringLiteral(", the sun rising behind a dark hill while the sky brightens from "
                            "purple to orange"),
         320, 240, 49, 24},
        {Scene::ExpandingRings, QStringLiteral("05-orange-rings"),
         t + QStringLiteral(", orange rings spreading out from the centre over a dark navy "
                            "background"),
         256, 256, 33, 16},
        {Scene::SpinningStar, QStringLiteral("06-yellow-star-spin"),
         t + QStringLiteral(", a yellow five-pointed star spinning as it rises through a night "
                            "sky full of small stars"),
         352, 240, 49, 24},
        {Scene::ScrollingCheckerboard, QStringLiteral("07-checkerboard-scroll"),
         t + QStringLiteral(", a black and white checkerboard scrolling diagonally across the "
                            "frame"),
         320, 240, 33, 16},
        {Scene::Snowfall, QStringLiteral("08-snowfall-night"),
         t + QStringLiteral(", white snowflakes drifting down over snowy ground on a dark blue "
                            "evening"),
         256, 256, 49, 24},
    };
}

QImage DemoClipCatalog::renderFrame(const Clip& clip, int frameIndex) {
    QImage image(clip.width, clip.height, QImage::Format_RGB888);
    image.fill(Qt::black);
    // t runs 0..1 over the clip, so every scene makes the same journey whatever its length.
    const double t =
        clip.frameCount > 1 ? static_cast<double>(frameIndex) / (clip.frameCount - 1) : 0.0;
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    const double width = clip.width;
    const double height = clip.height;
    switch (clip.scene) {
    case Scene::None:
        break;
    case Scene::BouncingBall:
        drawBouncingBall(painter, width, height, t);
        break;
    case Scene::RotatingSquare:
        drawRotatingSquare(painter, width, height, t);
        break;
    case Scene::SlidingTriangle:
        drawSlidingTriangle(painter, width, height, t);
        break;
    case Scene::Sunrise:
        drawSunrise(painter, width, height, t);
        break;
    case Scene::ExpandingRings:
        drawExpandingRings(painter, width, height, t);
        break;
    case Scene::SpinningStar:
        drawSpinningStar(painter, width, height, t);
        break;
    case Scene::ScrollingCheckerboard:
        drawScrollingCheckerboard(painter, width, height, t);
        break;
    case Scene::Snowfall:
        drawSnowfall(painter, width, height, t);
        break;
    }
    return image;
}
