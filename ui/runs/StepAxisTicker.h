#pragma once

#include <qcustomplot.h>

// Ticks for a step axis that never run together: whole steps in a 1-2-5 series, as far apart
// as the widest label needs at the axis' current width in pixels, labelled without exponents
// or group separators ("12000", not "1.2e+04" or "1020304050").
class StepAxisTicker : public QCPAxisTicker {
public:
    explicit StepAxisTicker(QCPAxis* axis);

    // The least room between two labels, in pixels.
    static constexpr int kLabelGapPixels = 12;

protected:
    double getTickStep(const QCPRange& range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale& locale, QChar formatChar,
                         int precision) override;

private:
    int axisLengthPixels() const;

    QCPAxis* m_axis;
};
