#include "ui/runs/DashboardPlot.h"

#include "ui/runs/StepAxisTicker.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QVBoxLayout>

#include <algorithm>

DashboardPlot::DashboardPlot(const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_logScale(new QCheckBox(this))
    , m_plot(new QCustomPlot(this)) {
    setObjectName(objectName + QStringLiteral("Panel"));
    m_plot->setObjectName(objectName);
    m_logScale->setObjectName(objectName + QStringLiteral("LogScaleCheck"));
    m_logScale->hide();
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_plot->setMinimumSize(kMinimumPlotWidth, kMinimumPlotHeight);
    m_plot->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);

    // The legend gets a row above the axis rect, so it takes room from the plot, not the data.
    QCPLayoutGrid* layout = m_plot->plotLayout();
    layout->insertRow(0);
    layout->addElement(0, 0, m_plot->legend);
    layout->setRowStretchFactor(0, 0.001);
    layout->setRowSpacing(0);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_plot->legend->setWrap(1);
    m_plot->legend->setBorderPen(Qt::NoPen);
    m_plot->legend->setBrush(Qt::NoBrush);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 0));

    m_plot->xAxis->setTicker(QSharedPointer<StepAxisTicker>::create(m_plot->xAxis));
    m_plot->xAxis->setNumberFormat(QStringLiteral("f"));
    m_plot->xAxis->setNumberPrecision(0);
    m_plot->setContextMenuPolicy(Qt::CustomContextMenu);

    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 4, 0);
    header->addWidget(m_title);
    header->addStretch(1);
    header->addWidget(m_logScale);
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(2);
    column->addLayout(header);
    column->addWidget(m_plot, 1);

    connect(m_logScale, &QCheckBox::toggled, this, [this](bool checked) {
        applyScale(checked);
        emit logScaleChanged(checked);
    });
    connect(m_plot, &QWidget::customContextMenuRequested, this, &DashboardPlot::showContextMenu);
    connect(m_plot, &QCustomPlot::beforeReplot, this, &DashboardPlot::fitLegendColumns);
    retranslateUi();
}

QCustomPlot* DashboardPlot::plot() const {
    return m_plot;
}

void DashboardPlot::setTitle(const QString& title) {
    m_title->setText(title);
}

QString DashboardPlot::title() const {
    return m_title->text();
}

void DashboardPlot::setTitleVisible(bool visible) {
    m_title->setVisible(visible);
}

void DashboardPlot::setLogScaleAvailable(bool available) {
    m_logScale->setVisible(available);
}

bool DashboardPlot::isLogScale() const {
    return m_logScale->isChecked();
}

void DashboardPlot::setLogScale(bool logarithmic) {
    m_logScale->setChecked(logarithmic);
}

void DashboardPlot::applyScale(bool logarithmic) {
    for (QCPAxis* axis : {m_plot->yAxis, m_plot->yAxis2}) {
        if (logarithmic) {
            axis->setScaleType(QCPAxis::stLogarithmic);
            axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
            axis->setNumberFormat(QStringLiteral("gb"));
        } else {
            axis->setScaleType(QCPAxis::stLinear);
            axis->setTicker(QSharedPointer<QCPAxisTicker>::create());
            axis->setNumberFormat(QStringLiteral("gbd"));
        }
    }
}

void DashboardPlot::fitLegendColumns() {
    QCPLegend* legend = m_plot->legend;
    // The grid's cells; after a wrap some are empty.
    const int cells = legend->itemCount();
    int count = 0;
    int widest = 1;
    for (int index = 0; index < cells; ++index) {
        if (QCPAbstractLegendItem* item = legend->item(index)) {
            widest = std::max(widest, item->minimumOuterSizeHint().width());
            ++count;
        }
    }
    if (count == 0)
        return;
    const QMargins margins = legend->margins();
    const int room = m_plot->viewport().width() - margins.left() - margins.right();
    const int columns =
        std::clamp((room + legend->columnSpacing()) / (widest + legend->columnSpacing()), 1, count);
    if (columns != legend->wrap()) {
        legend->setWrap(columns);
        legend->setFillOrder(QCPLegend::foColumnsFirst, true);
    }
    // The legend's rows come on top of the data's own minimum height, not out of it. Set once
    // this replot is over: a resize inside it leaves the plot's viewport at the old height (its
    // own resize handling skips a replot that is already running), and the rows below it
    // unpainted.
    const int height = kMinimumPlotHeight + legend->minimumOuterSizeHint().height();
    if (m_plot->minimumHeight() != height)
        QMetaObject::invokeMethod(
            this, [this, height] { m_plot->setMinimumHeight(height); }, Qt::QueuedConnection);
}

void DashboardPlot::showContextMenu(const QPoint& position) {
    auto* menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    if (m_logScale->isVisible()) {
        QAction* log = menu->addAction(tr("Logarithmic Scale"));
        log->setCheckable(true);
        log->setChecked(m_logScale->isChecked());
        connect(log, &QAction::toggled, m_logScale, &QCheckBox::setChecked);
    }
    connect(menu->addAction(tr("Fit")), &QAction::triggered, this, &DashboardPlot::fitRequested);
    menu->popup(m_plot->mapToGlobal(position));
}

void DashboardPlot::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void DashboardPlot::retranslateUi() {
    m_logScale->setText(tr("Log scale"));
    m_logScale->setToolTip(tr("Show the values on a logarithmic axis, so late, small changes "
                              "stay visible."));
}
