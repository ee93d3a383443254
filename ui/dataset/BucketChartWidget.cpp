#include "ui/dataset/BucketChartWidget.h"

#include "app/dataset/buckets/BucketPreviewModel.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QPainter>

#include <algorithm>

namespace {

constexpr int kMinimumRows = 3;
constexpr int kPadding = 6;

} // namespace

BucketChartWidget::BucketChartWidget(QWidget* parent)
    : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void BucketChartWidget::setModel(QAbstractItemModel* model) {
    if (m_model)
        m_model->disconnect(this);
    m_model = model;
    if (model) {
        connect(model, &QAbstractItemModel::modelReset, this, &BucketChartWidget::onModelChanged);
        connect(model, &QAbstractItemModel::dataChanged, this, &BucketChartWidget::onModelChanged);
        connect(model, &QAbstractItemModel::rowsInserted, this, &BucketChartWidget::onModelChanged);
        connect(model, &QAbstractItemModel::rowsRemoved, this, &BucketChartWidget::onModelChanged);
    }
    onModelChanged();
}

QVector<BucketChartWidget::Bar> BucketChartWidget::bars() const {
    QVector<Bar> result;
    if (!m_model)
        return result;
    for (int row = 0; row < m_model->rowCount(); ++row) {
        Bar bar;
        bar.label =
            m_model->index(row, BucketPreviewModel::BucketColumn).data(Qt::DisplayRole).toString();
        bar.count = m_model->index(row, BucketPreviewModel::ClipsColumn).data().toInt();
        bar.dropped = m_model->index(row, 0).data(BucketPreviewModel::DroppedRole).toBool();
        result.append(bar);
    }
    return result;
}

int BucketChartWidget::rowHeight() const {
    return fontMetrics().height() + 8;
}

QSize BucketChartWidget::sizeHint() const {
    const int rows = std::max(kMinimumRows, m_model ? m_model->rowCount() : 0);
    return QSize(360, rows * rowHeight() + 2 * kPadding);
}

QSize BucketChartWidget::minimumSizeHint() const {
    return QSize(200, kMinimumRows * rowHeight() + 2 * kPadding);
}

void BucketChartWidget::onModelChanged() {
    updateGeometry();
    update();
}

void BucketChartWidget::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.fillRect(rect(), palette().color(QPalette::Base));
    const QVector<Bar> allBars = bars();
    const QFontMetrics metrics = fontMetrics();
    if (allBars.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter, tr("No clips to place"));
        return;
    }
    int labelWidth = 0;
    int largest = 1;
    for (const Bar& bar : allBars) {
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(bar.label));
        largest = std::max(largest, bar.count);
    }
    // A few pixels over the measured advance: elidedText() rounds differently and would cut
    // the last character of the widest label.
    labelWidth = std::min(labelWidth + 6, width() * 45 / 100);
    const int countWidth = metrics.horizontalAdvance(QString::number(largest)) + kPadding;
    const int barLeft = kPadding + labelWidth + kPadding;
    const int barSpace = std::max(1, width() - barLeft - countWidth - kPadding);
    const QColor placed = palette().color(QPalette::Highlight);
    const QColor dropped(0xc9, 0x40, 0x40);
    for (int row = 0; row < allBars.size(); ++row) {
        const Bar& bar = allBars.at(row);
        const int top = kPadding + row * rowHeight();
        const QRect labelRect(kPadding, top, labelWidth, rowHeight());
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(labelRect, Qt::AlignRight | Qt::AlignVCenter,
                         metrics.elidedText(bar.label, Qt::ElideRight, labelWidth));
        const int length = bar.count > 0 ? std::max(2, barSpace * bar.count / largest) : 0;
        const QRect barRect(barLeft, top + 3, length, rowHeight() - 6);
        painter.setPen(Qt::NoPen);
        painter.setBrush(bar.dropped ? dropped : placed);
        painter.drawRoundedRect(barRect, 2, 2);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(QRect(barRect.right() + kPadding, top, countWidth, rowHeight()),
                         Qt::AlignLeft | Qt::AlignVCenter, QString::number(bar.count));
    }
}

void BucketChartWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        update();
    QWidget::changeEvent(event);
}
