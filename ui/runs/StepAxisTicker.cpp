#include "ui/runs/StepAxisTicker.h"

#include <QFontMetrics>

#include <algorithm>
#include <cmath>

namespace {

// The smallest of 1, 2 or 5 times a power of ten that is at least `minimum` (and at least 1:
// steps are whole).
double niceStep(double minimum) {
    if (!std::isfinite(minimum) || minimum <= 1)
        return 1;
    const double power = std::pow(10.0, std::floor(std::log10(minimum)));
    for (double factor : {1.0, 2.0, 5.0, 10.0}) {
        if (factor * power >= minimum)
            return factor * power;
    }
    return 10 * power;
}

} // namespace

StepAxisTicker::StepAxisTicker(QCPAxis* axis)
    : m_axis(axis) {}

int StepAxisTicker::axisLengthPixels() const {
    // Taken from the viewport, which a resize has already updated when the ticks are made,
    // less the margins of the last layout (the axis rect itself is laid out after the ticks).
    QCPAxisRect* rect = m_axis->axisRect();
    const QMargins margins = rect->margins();
    const int viewport = m_axis->orientation() == Qt::Horizontal
                             ? m_axis->parentPlot()->viewport().width()
                             : m_axis->parentPlot()->viewport().height();
    const int length = m_axis->orientation() == Qt::Horizontal
                           ? viewport - margins.left() - margins.right()
                           : viewport - margins.top() - margins.bottom();
    return std::max(length, 40);
}

double StepAxisTicker::getTickStep(const QCPRange& range) {
    const QFontMetrics metrics(m_axis->tickLabelFont());
    const QLocale locale = m_axis->parentPlot()->locale();
    const int widest =
        std::max(metrics.horizontalAdvance(getTickLabel(range.lower, locale, QLatin1Char('f'), 0)),
                 metrics.horizontalAdvance(getTickLabel(range.upper, locale, QLatin1Char('f'), 0)));
    const int perLabel =
        (m_axis->orientation() == Qt::Horizontal ? widest : metrics.height()) + kLabelGapPixels;
    const double labels = std::max(1.0, std::floor(axisLengthPixels() / double(perLabel)));
    return niceStep(range.size() / labels);
}

int StepAxisTicker::getSubTickCount(double tickStep) {
    // Sub-ticks only where they fall on whole steps.
    const int count = QCPAxisTicker::getSubTickCount(tickStep);
    const double spacing = tickStep / (count + 1);
    return spacing >= 1 && std::abs(spacing - std::round(spacing)) < 1e-9 ? count : 0;
}

QString StepAxisTicker::getTickLabel(double tick, const QLocale& locale, QChar, int) {
    QLocale plain = locale;
    plain.setNumberOptions(QLocale::OmitGroupSeparator);
    return plain.toString(std::round(tick), 'f', 0);
}
