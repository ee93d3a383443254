#include "ui/runs/RunDashboard.h"

#include "ui/runs/DashboardPlot.h"

#include <qcustomplot.h>

#include <QAction>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPainter>
#include <QPushButton>
#include <QResizeEvent>
#include <QSaveFile>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {

constexpr int kReplotIntervalMs = 200;
// The least height the memory table under the grid gets: its header and a few rows.
constexpr int kExtraPanelHeight = 110;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// Headroom above the highest memory curve, so it does not run along the plot's edge.
constexpr double kMemoryHeadroom = 1.15;
// The device total is drawn when the use reaches this share of it; below, it would flatten the
// curves into a line at zero, so the legend only names it.
constexpr double kShowTotalFromShare = 0.5;
const QColor kRunColor(61, 126, 234);
const QColor kComparisonColor(230, 126, 34);
const QColor kMemoryColors[] = {QColor(61, 126, 234), QColor(39, 174, 96), QColor(192, 57, 43)};

QCPGraph* addGraph(QCustomPlot* plot, const QColor& color, qreal width, Qt::PenStyle style,
                   QCPAxis* valueAxis = nullptr) {
    QCPGraph* graph = plot->addGraph(plot->xAxis, valueAxis ? valueAxis : plot->yAxis);
    QPen pen(color, width, style);
    graph->setPen(pen);
    graph->setAdaptiveSampling(true);
    return graph;
}

QString number(double value) {
    return std::isfinite(value) ? QLocale().toString(value, 'g', 5) : QStringLiteral("–");
}

// The value range of the graphs on one axis.
QCPRange axisDataRange(QCustomPlot* plot, QCPAxis* axis, bool* found) {
    QCPRange total;
    *found = false;
    for (int index = 0; index < plot->graphCount(); ++index) {
        QCPGraph* graph = plot->graph(index);
        if (graph->valueAxis() != axis || graph->data()->isEmpty())
            continue;
        bool graphFound = false;
        const QCPRange range = graph->getValueRange(graphFound);
        if (!graphFound)
            continue;
        total = *found ? QCPRange(std::min(total.lower, range.lower),
                                  std::max(total.upper, range.upper))
                       : range;
        *found = true;
    }
    return total;
}

// The 1st to 99th percentile of a graph's values, widened a little: one warm-up step ten times
// slower than the rest would otherwise flatten the speed curves against the axis.
bool robustRange(QCPGraph* graph, QCPRange* range) {
    QVector<double> values;
    values.reserve(graph->data()->size());
    for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
        if (std::isfinite(it->value))
            values.append(it->value);
    }
    if (values.isEmpty())
        return false;
    std::sort(values.begin(), values.end());
    const auto at = [&values](double share) {
        return values.at(static_cast<int>(share * static_cast<double>(values.size() - 1)));
    };
    const double low = at(0.01);
    const double high = at(0.99);
    const double pad = std::max((high - low) * 0.15, std::abs(high) * 0.05);
    *range = QCPRange(std::max(0.0, low - pad), high + pad);
    return true;
}

const StepMetrics* nearestStep(const QVector<StepMetrics>& history, double step) {
    if (history.isEmpty())
        return nullptr;
    auto after = std::lower_bound(history.begin(), history.end(), step,
                                  [](const StepMetrics& m, double s) { return m.step < s; });
    if (after == history.end())
        return &history.constLast();
    if (after == history.begin())
        return &*after;
    auto before = after - 1;
    return (step - before->step) <= (after->step - step) ? &*before : &*after;
}

} // namespace

RunDashboard::RunDashboard(QWidget* parent)
    : QWidget(parent)
    , m_smoothingLabel(new QLabel(this))
    , m_smoothingSlider(new QSlider(Qt::Horizontal, this))
    , m_fitButton(new QPushButton(this))
    , m_saveButton(new QToolButton(this))
    , m_pngAction(new QAction(this))
    , m_csvAction(new QAction(this))
    , m_lossPanel(createPlot("lossPlot"))
    , m_learningRatePanel(createPlot("learningRatePlot"))
    , m_speedPanel(createPlot("speedPlot"))
    , m_memoryPanel(createPlot("memoryPlot"))
    , m_lossPlot(m_lossPanel->plot())
    , m_learningRatePlot(m_learningRatePanel->plot())
    , m_speedPlot(m_speedPanel->plot())
    , m_arrangements(new QStackedWidget(this))
    , m_gridPage(new QWidget)
    , m_plotGrid(new QGridLayout(m_gridPage))
    , m_tabs(new QTabWidget)
    , m_memoryTab(new QSplitter(Qt::Vertical))
    , m_memoryPlot(m_memoryPanel->plot())
    , m_replotTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("runDashboard"));
    m_smoothingSlider->setObjectName(QStringLiteral("smoothingSlider"));
    m_smoothingSlider->setRange(0, 999);
    m_smoothingSlider->setValue(static_cast<int>(m_smoothing * 1000));
    m_smoothingSlider->setMinimumWidth(60);
    m_fitButton->setObjectName(QStringLiteral("fitPlotsButton"));
    m_saveButton->setObjectName(QStringLiteral("savePlotsButton"));
    m_saveButton->setPopupMode(QToolButton::InstantPopup);
    m_saveButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_pngAction->setObjectName(QStringLiteral("exportPngAction"));
    m_csvAction->setObjectName(QStringLiteral("exportCsvAction"));
    auto* saveMenu = new QMenu(m_saveButton);
    saveMenu->addAction(m_pngAction);
    saveMenu->addAction(m_csvAction);
    m_saveButton->setMenu(saveMenu);

    m_lossRaw = addGraph(m_lossPlot, kRunColor.lighter(160), 1, Qt::SolidLine);
    m_lossSmoothed = addGraph(m_lossPlot, kRunColor, 2, Qt::SolidLine);
    m_comparisonLoss = addGraph(m_lossPlot, kComparisonColor, 2, Qt::DashLine);
    m_learningRate = addGraph(m_learningRatePlot, kRunColor, 2, Qt::SolidLine);
    m_comparisonLearningRate = addGraph(m_learningRatePlot, kComparisonColor, 2, Qt::DashLine);
    m_learningRatePlot->yAxis2->setVisible(true);
    m_gradNorm = addGraph(m_learningRatePlot, QColor(142, 68, 173), 1, Qt::SolidLine,
                          m_learningRatePlot->yAxis2);
    // One axis: seconds per step, raw and smoothed as the loss is (throughput is in the hover).
    m_stepTime = addGraph(m_speedPlot, kRunColor.lighter(160), 1, Qt::SolidLine);
    m_stepTimeSmoothed = addGraph(m_speedPlot, kRunColor, 2, Qt::SolidLine);
    m_memoryTotal = addGraph(m_memoryPlot, QColor(127, 127, 127), 1.5, Qt::DashLine);
    m_lossPlot->graph(2)->removeFromLegend();
    m_learningRatePlot->graph(1)->removeFromLegend();
    m_lossPanel->setLogScaleAvailable(true);
    m_learningRatePanel->setLogScaleAvailable(true);

    auto* tools = new QHBoxLayout;
    tools->addWidget(m_smoothingLabel);
    tools->addWidget(m_smoothingSlider, 1);
    tools->addWidget(m_fitButton);
    tools->addWidget(m_saveButton);
    m_gridPage->setObjectName(QStringLiteral("dashboardGrid"));
    m_plotGrid->setContentsMargins(0, 0, 0, 0);
    m_tabs->setObjectName(QStringLiteral("dashboardTabs"));
    m_memoryTab->setObjectName(QStringLiteral("memoryTabSplitter"));
    m_memoryTab->setChildrenCollapsible(false);
    m_tabs->setDocumentMode(true);
    m_arrangements->setObjectName(QStringLiteral("dashboardPlots"));
    // The grid never holds the dashboard open: where it does not fit, the tabs take over.
    m_gridPage->setMinimumSize(1, 1);
    m_arrangements->installEventFilter(this);
    m_arrangements->addWidget(m_gridPage);
    m_arrangements->addWidget(m_tabs);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(tools);
    layout->addWidget(m_arrangements, 1);
    arrangePlots();

    m_replotTimer->setSingleShot(true);
    m_replotTimer->setInterval(kReplotIntervalMs);
    connect(m_replotTimer, &QTimer::timeout, this, &RunDashboard::replotNow);
    connect(m_smoothingSlider, &QSlider::valueChanged, this,
            [this](int value) { setSmoothing(value / 1000.0); });
    connect(m_fitButton, &QPushButton::clicked, this, &RunDashboard::fitAll);
    connect(m_pngAction, &QAction::triggered, this, &RunDashboard::onExportPngClicked);
    connect(m_csvAction, &QAction::triggered, this, &RunDashboard::onExportCsvClicked);
    retranslateUi();
}

RunDashboard::~RunDashboard() = default;

DashboardPlot* RunDashboard::createPlot(const char* objectName) {
    auto* panel = new DashboardPlot(QString::fromLatin1(objectName), this);
    QCustomPlot* plot = panel->plot();
    connect(panel, &DashboardPlot::logScaleChanged, this, [this] { fitAll(); });
    connect(panel, &DashboardPlot::fitRequested, this, &RunDashboard::fitAll);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->setNoAntialiasingOnDrag(true);
    plot->setMouseTracking(true);
    connect(plot, &QCustomPlot::mouseMove, this,
            [this, plot](QMouseEvent* event) { showHoverValues(plot, event->pos()); });
    connect(plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent*) { fitAll(); });
    connect(plot, &QCustomPlot::mousePress, this, [this](QMouseEvent*) { m_followLatest = false; });
    connect(plot, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) { m_followLatest = false; });
    connect(plot, &QCustomPlot::afterReplot, this, [this] { ++m_replotCount; });
    return panel;
}

void RunDashboard::setRun(const QString& name, const QVector<StepMetrics>& history) {
    clear();
    m_runName = name;
    for (const StepMetrics& metrics : history)
        appendStep(metrics);
    retranslateUi();
    fitAll();
}

void RunDashboard::appendStep(const StepMetrics& metrics) {
    if (!m_history.isEmpty() && metrics.step <= m_history.constLast().step) {
        // A resumed run repeats the steps after its checkpoint: keep the newest numbers.
        while (!m_history.isEmpty() && m_history.constLast().step >= metrics.step)
            m_history.removeLast();
        m_history.append(metrics);
        for (QCustomPlot* plot : {m_lossPlot, m_learningRatePlot, m_speedPlot, m_memoryPlot}) {
            for (int index = 0; index < plot->graphCount(); ++index) {
                QCPGraph* graph = plot->graph(index);
                if (graph != m_comparisonLoss && graph != m_comparisonLearningRate)
                    graph->data()->removeAfter(metrics.step - 0.5);
            }
        }
        rebuildSmoothed();
        addToGraphs(metrics);
    } else {
        m_history.append(metrics);
        if (std::isfinite(metrics.loss))
            m_lossSmoothed->addData(metrics.step, m_smoother.add(metrics.loss));
        if (std::isfinite(metrics.stepTimeSeconds))
            m_stepTimeSmoothed->addData(metrics.step,
                                        m_stepTimeSmoother.add(metrics.stepTimeSeconds));
        addToGraphs(metrics);
    }
    scheduleReplot();
}

void RunDashboard::addToGraphs(const StepMetrics& metrics) {
    const double step = static_cast<double>(metrics.step);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    m_lossRaw->addData(step, std::isfinite(metrics.loss) ? metrics.loss : nan);
    m_learningRate->addData(step, metrics.learningRate);
    m_gradNorm->addData(step, metrics.gradNorm);
    m_stepTime->addData(step, metrics.stepTimeSeconds);
    for (const DeviceMemorySample& sample : metrics.memory) {
        const int base = sample.rank * 3;
        while (m_memoryGraphs.size() < base + 3) {
            const int kind = static_cast<int>(m_memoryGraphs.size()) % 3;
            QColor color = kMemoryColors[kind];
            if (m_memoryGraphs.size() >= 3)
                color = color.darker(100 + 40 * static_cast<int>(m_memoryGraphs.size() / 3));
            m_memoryGraphs.append(addGraph(m_memoryPlot, color, 1.5, Qt::SolidLine));
            nameMemoryGraphs();
        }
        m_memoryGraphs[base]->addData(step, sample.allocatedBytes / kGiB);
        m_memoryGraphs[base + 1]->addData(step, sample.reservedBytes / kGiB);
        m_memoryGraphs[base + 2]->addData(step, sample.peakBytes / kGiB);
        if (sample.rank == 0 && sample.totalBytes > 0) {
            m_memoryTotal->addData(step, sample.totalBytes / kGiB);
            if (sample.totalBytes / kGiB != m_deviceTotalGiB) {
                m_deviceTotalGiB = sample.totalBytes / kGiB;
                nameMemoryGraphs();
            }
        }
    }
}

void RunDashboard::setComparison(const QString& name, const QVector<StepMetrics>& history) {
    m_comparisonName = name;
    m_comparison = history;
    m_comparisonLoss->data()->clear();
    m_comparisonLearningRate->data()->clear();
    LossSmoother smoother(m_smoothing);
    for (const StepMetrics& metrics : history) {
        if (std::isfinite(metrics.loss))
            m_comparisonLoss->addData(metrics.step, smoother.add(metrics.loss));
        m_comparisonLearningRate->addData(metrics.step, metrics.learningRate);
    }
    m_comparisonLoss->addToLegend();
    m_comparisonLearningRate->addToLegend();
    retranslateUi();
    fitAll();
}

void RunDashboard::clearComparison() {
    m_comparisonName.clear();
    m_comparison.clear();
    m_comparisonLoss->data()->clear();
    m_comparisonLearningRate->data()->clear();
    m_comparisonLoss->removeFromLegend();
    m_comparisonLearningRate->removeFromLegend();
    scheduleReplot();
}

void RunDashboard::clear() {
    m_runName.clear();
    m_history.clear();
    m_deviceTotalGiB = 0;
    m_smoother.reset();
    m_stepTimeSmoother.reset();
    m_followLatest = true;
    for (QCustomPlot* plot : {m_lossPlot, m_learningRatePlot, m_speedPlot, m_memoryPlot}) {
        for (int index = 0; index < plot->graphCount(); ++index) {
            QCPGraph* graph = plot->graph(index);
            if (graph != m_comparisonLoss && graph != m_comparisonLearningRate)
                graph->data()->clear();
        }
    }
    scheduleReplot();
}

void RunDashboard::setSmoothing(double weight) {
    m_smoothing = std::clamp(weight, 0.0, 0.999);
    rebuildSmoothed();
    if (!m_comparison.isEmpty())
        setComparison(m_comparisonName, m_comparison);
    retranslateUi();
    scheduleReplot();
}

double RunDashboard::smoothing() const {
    return m_smoothing;
}

int RunDashboard::pointCount() const {
    return static_cast<int>(m_history.size());
}

bool RunDashboard::hasComparison() const {
    return !m_comparisonName.isEmpty();
}

QString RunDashboard::valuesTextAt(double step) const {
    const StepMetrics* metrics = nearestStep(m_history, step);
    if (!metrics)
        return QString();
    QString text =
        tr("Step %1 (epoch %2)\nLoss %3\nLearning rate %4\nGrad norm %5\n"
           "Step time %6 s, %7 samples/s")
            .arg(metrics->step)
            .arg(metrics->epoch)
            .arg(number(metrics->loss), number(metrics->learningRate), number(metrics->gradNorm),
                 number(metrics->stepTimeSeconds), number(metrics->samplesPerSecond));
    for (const DeviceMemorySample& sample : metrics->memory)
        text += QLatin1Char('\n') + tr("Rank %1: %2 GiB allocated, %3 GiB peak of %4 GiB")
                                        .arg(sample.rank)
                                        .arg(number(sample.allocatedBytes / kGiB),
                                             number(sample.peakBytes / kGiB),
                                             number(sample.totalBytes / kGiB));
    if (const StepMetrics* other = nearestStep(m_comparison, step))
        text += QLatin1Char('\n') + tr("%1 at step %2: loss %3")
                                        .arg(m_comparisonName)
                                        .arg(other->step)
                                        .arg(number(other->loss));
    return text;
}

int RunDashboard::replotCount() const {
    return m_replotCount;
}

DashboardPlot* RunDashboard::lossPanel() const {
    return m_lossPanel;
}

DashboardPlot* RunDashboard::learningRatePanel() const {
    return m_learningRatePanel;
}

DashboardPlot* RunDashboard::speedPanel() const {
    return m_speedPanel;
}

DashboardPlot* RunDashboard::memoryPanel() const {
    return m_memoryPanel;
}

QVector<double> RunDashboard::smoothedStepTime() const {
    QVector<double> values;
    for (auto it = m_stepTimeSmoothed->data()->constBegin();
         it != m_stepTimeSmoothed->data()->constEnd(); ++it)
        values.append(it->value);
    return values;
}

bool RunDashboard::isTabbed() const {
    return m_arrangement == Arrangement::Tabs;
}

void RunDashboard::setExtraPanel(QWidget* panel) {
    m_extraPanel = panel;
    m_arrangement = Arrangement::None; // placed again
    arrangePlots();
}

QVector<double> RunDashboard::smoothedLoss() const {
    QVector<double> values;
    for (auto it = m_lossSmoothed->data()->constBegin(); it != m_lossSmoothed->data()->constEnd();
         ++it)
        values.append(it->value);
    return values;
}

bool RunDashboard::exportPng(const QString& file, QString* error) const {
    const QList<QCustomPlot*> plots{m_lossPlot, m_learningRatePlot, m_speedPlot, m_memoryPlot};
    const int width = std::max(1280, m_lossPlot->width() + m_learningRatePlot->width());
    const int height = std::max(800, m_lossPlot->height() + m_speedPlot->height());
    QImage image(width, height, QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    for (int index = 0; index < plots.size(); ++index) {
        const QPixmap pixmap = plots.at(index)->toPixmap(width / 2, height / 2);
        painter.drawPixmap((index % 2) * (width / 2), (index / 2) * (height / 2), pixmap);
    }
    painter.end();
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || !image.save(&out, "PNG") || !out.commit()) {
        if (error)
            *error = tr("%1 could not be written: %2")
                         .arg(QDir::toNativeSeparators(file), out.errorString());
        return false;
    }
    return true;
}

bool RunDashboard::exportCsv(const QString& file, QString* error) const {
    int ranks = 0;
    for (const StepMetrics& metrics : m_history)
        ranks = std::max(ranks, static_cast<int>(metrics.memory.size()));
    QByteArray text =
        "step,epoch,loss,loss_ema,lr,grad_norm,step_time_s,samples_per_s,tokens_per_s";
    for (int rank = 0; rank < ranks; ++rank)
        text += QStringLiteral(",rank%1_allocated,rank%1_reserved,rank%1_peak,rank%1_total")
                    .arg(rank)
                    .toUtf8();
    text += '\n';
    const QVector<double> smoothed = smoothedLoss();
    int smoothedIndex = 0;
    auto value = [](double v) {
        return std::isfinite(v) ? QByteArray::number(v, 'g', 9) : QByteArray();
    };
    for (const StepMetrics& metrics : m_history) {
        double ema = std::numeric_limits<double>::quiet_NaN();
        if (std::isfinite(metrics.loss) && smoothedIndex < smoothed.size())
            ema = smoothed.at(smoothedIndex++);
        text += QByteArray::number(metrics.step) + ',' + QByteArray::number(metrics.epoch) + ',' +
                value(metrics.loss) + ',' + value(ema) + ',' + value(metrics.learningRate) + ',' +
                value(metrics.gradNorm) + ',' + value(metrics.stepTimeSeconds) + ',' +
                value(metrics.samplesPerSecond) + ',' + value(metrics.tokensPerSecond);
        for (int rank = 0; rank < ranks; ++rank) {
            if (rank < metrics.memory.size()) {
                const DeviceMemorySample& sample = metrics.memory.at(rank);
                text += ',' + QByteArray::number(sample.allocatedBytes) + ',' +
                        QByteArray::number(sample.reservedBytes) + ',' +
                        QByteArray::number(sample.peakBytes) + ',' +
                        QByteArray::number(sample.totalBytes);
            } else {
                text += ",,,,";
            }
        }
        text += '\n';
    }
    QSaveFile out(file);
    if (!out.open(QIODevice::WriteOnly) || out.write(text) != text.size() || !out.commit()) {
        if (error)
            *error = tr("%1 could not be written: %2")
                         .arg(QDir::toNativeSeparators(file), out.errorString());
        return false;
    }
    return true;
}

bool RunDashboard::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_arrangements && event->type() == QEvent::Resize)
        arrangePlots();
    return QWidget::eventFilter(watched, event);
}

bool RunDashboard::gridFits() const {
    int panelHeight = 0;
    for (const DashboardPlot* panel :
         {m_lossPanel, m_learningRatePanel, m_speedPanel, m_memoryPanel})
        panelHeight = std::max(panelHeight, panel->minimumSizeHint().height());
    const int spacing = std::max(0, m_plotGrid->spacing());
    const int wide = 2 * DashboardPlot::kMinimumPlotWidth + spacing;
    int tall = 2 * panelHeight + spacing;
    if (m_extraPanel)
        tall += spacing + std::max(m_extraPanel->minimumSizeHint().height(), kExtraPanelHeight);
    return m_arrangements->width() >= wide && m_arrangements->height() >= tall;
}

void RunDashboard::arrangePlots() {
    const Arrangement wanted = gridFits() ? Arrangement::Grid : Arrangement::Tabs;
    if (wanted == m_arrangement)
        return;
    m_arrangement = wanted;
    const QList<DashboardPlot*> panels{m_lossPanel, m_learningRatePanel, m_speedPanel,
                                       m_memoryPanel};
    const int current = std::max(0, m_tabs->currentIndex());
    while (m_tabs->count() > 0)
        m_tabs->removeTab(0);
    for (DashboardPlot* panel : panels)
        m_plotGrid->removeWidget(panel);
    if (m_extraPanel)
        m_plotGrid->removeWidget(m_extraPanel);
    // Out of the memory tab's splitter, if it was there; the splitter stays empty.
    for (QWidget* widget : {static_cast<QWidget*>(m_memoryPanel), m_extraPanel}) {
        if (widget && widget->parentWidget() == m_memoryTab)
            widget->setParent(m_gridPage);
    }
    if (wanted == Arrangement::Grid) {
        for (int index = 0; index < panels.size(); ++index) {
            panels.at(index)->setTitleVisible(true);
            m_plotGrid->addWidget(panels.at(index), index / 2, index % 2);
            panels.at(index)->show();
        }
        m_plotGrid->setRowStretch(0, 2);
        m_plotGrid->setRowStretch(1, 2);
        if (m_extraPanel) {
            m_plotGrid->addWidget(m_extraPanel, 2, 0, 1, 2);
            m_plotGrid->setRowStretch(2, 1);
            m_extraPanel->show();
        }
        m_arrangements->setCurrentWidget(m_gridPage);
    } else {
        // The tab says what the plot is; its own title would say it twice. The memory table
        // shares the memory plot's tab, under it.
        for (DashboardPlot* panel : panels) {
            panel->setTitleVisible(false);
            if (panel == m_memoryPanel && m_extraPanel) {
                m_memoryTab->addWidget(m_memoryPanel);
                m_memoryTab->addWidget(m_extraPanel);
                m_memoryTab->setStretchFactor(0, 3);
                m_memoryTab->setStretchFactor(1, 2);
                m_memoryPanel->show();
                m_extraPanel->show();
                m_tabs->addTab(m_memoryTab, panel->title());
            } else {
                m_tabs->addTab(panel, panel->title());
            }
        }
        m_tabs->setCurrentIndex(std::min(current, m_tabs->count() - 1));
        m_arrangements->setCurrentWidget(m_tabs);
    }
}

void RunDashboard::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void RunDashboard::retranslateUi() {
    // The weight itself in the tooltips: the row keeps to a laptop's narrow column.
    m_smoothingLabel->setText(tr("Smoothing"));
    const QString weight = tr("Smoothing %1 (0: none): the loss and the step time are averaged "
                              "over the steps before, as TensorBoard does.")
                               .arg(QLocale().toString(m_smoothing, 'f', 3));
    m_smoothingLabel->setToolTip(weight);
    m_smoothingSlider->setToolTip(weight);
    m_fitButton->setText(tr("Fit"));
    m_fitButton->setToolTip(tr("Show every point (or double-click a plot)."));
    m_saveButton->setText(tr("Save"));
    m_saveButton->setToolTip(tr("Save the plots as a picture or the numbers as CSV."));
    m_pngAction->setText(tr("Plots as PNG…"));
    m_csvAction->setText(tr("Numbers as CSV…"));
    m_lossPanel->setTitle(tr("Loss"));
    m_learningRatePanel->setTitle(tr("Learning rate"));
    m_speedPanel->setTitle(tr("Speed"));
    m_memoryPanel->setTitle(tr("Memory"));
    const QList<DashboardPlot*> panels{m_lossPanel, m_learningRatePanel, m_speedPanel,
                                       m_memoryPanel};
    for (DashboardPlot* panel : panels) {
        const int tab = m_tabs->indexOf(
            panel == m_memoryPanel && m_extraPanel ? static_cast<QWidget*>(m_memoryTab) : panel);
        if (tab >= 0)
            m_tabs->setTabText(tab, panel->title());
    }
    m_lossPlot->xAxis->setLabel(tr("Step"));
    m_lossPlot->yAxis->setLabel(tr("Loss"));
    m_lossRaw->setName(tr("Loss"));
    m_lossSmoothed->setName(tr("Loss, smoothed"));
    m_comparisonLoss->setName(tr("%1, smoothed").arg(m_comparisonName));
    m_learningRatePlot->xAxis->setLabel(tr("Step"));
    m_learningRatePlot->yAxis->setLabel(tr("Learning rate"));
    m_learningRatePlot->yAxis2->setLabel(tr("Grad norm"));
    m_learningRate->setName(tr("Learning rate"));
    m_comparisonLearningRate->setName(tr("%1, learning rate").arg(m_comparisonName));
    m_gradNorm->setName(tr("Grad norm"));
    m_speedPlot->xAxis->setLabel(tr("Step"));
    m_speedPlot->yAxis->setLabel(tr("Seconds per step"));
    m_stepTime->setName(tr("Seconds per step"));
    m_stepTimeSmoothed->setName(tr("Seconds per step, smoothed"));
    m_memoryPlot->xAxis->setLabel(tr("Step"));
    m_memoryPlot->yAxis->setLabel(tr("Memory (GiB)"));
    nameMemoryGraphs();
    scheduleReplot();
}

void RunDashboard::nameMemoryGraphs() {
    m_memoryTotal->setName(
        m_deviceTotalGiB > 0
            ? tr("Device total %1 GiB").arg(QLocale().toString(m_deviceTotalGiB, 'f', 1))
            : tr("Device total"));
    for (int index = 0; index < m_memoryGraphs.size(); ++index) {
        const int rank = index / 3;
        const QString kind = index % 3 == 0   ? tr("allocated")
                             : index % 3 == 1 ? tr("reserved")
                                              : tr("peak");
        m_memoryGraphs[index]->setName(tr("Rank %1 %2").arg(rank).arg(kind));
    }
}

void RunDashboard::rebuildSmoothed() {
    m_smoother = LossSmoother(m_smoothing);
    m_stepTimeSmoother = LossSmoother(m_smoothing);
    QVector<double> keys;
    QVector<double> values;
    QVector<double> timeKeys;
    QVector<double> times;
    for (const StepMetrics& metrics : m_history) {
        if (std::isfinite(metrics.loss)) {
            keys.append(metrics.step);
            values.append(m_smoother.add(metrics.loss));
        }
        if (std::isfinite(metrics.stepTimeSeconds)) {
            timeKeys.append(metrics.step);
            times.append(m_stepTimeSmoother.add(metrics.stepTimeSeconds));
        }
    }
    m_lossSmoothed->setData(keys, values, true);
    m_stepTimeSmoothed->setData(timeKeys, times, true);
}

void RunDashboard::scheduleReplot() {
    if (!m_replotTimer->isActive())
        m_replotTimer->start();
}

void RunDashboard::replotNow() {
    if (m_followLatest) {
        fitAll();
        return;
    }
    for (QCustomPlot* plot : {m_lossPlot, m_learningRatePlot, m_speedPlot, m_memoryPlot})
        plot->replot(QCustomPlot::rpQueuedReplot);
}

void RunDashboard::fitAll() {
    m_followLatest = true;
    for (QCustomPlot* plot : {m_lossPlot, m_learningRatePlot, m_speedPlot, m_memoryPlot}) {
        plot->rescaleAxes(true);
        // Steps count from 0, as in TensorBoard; the 0 tick also gives a narrow plot a second
        // label when only two fit.
        if (plot->xAxis->range().lower > 0)
            plot->xAxis->setRangeLower(0);
        // A constant series (a constant learning rate) would get an arbitrary ±1 range.
        for (QCPAxis* axis : {plot->yAxis, plot->yAxis2}) {
            bool found = false;
            const QCPRange data = axisDataRange(plot, axis, &found);
            if (found && data.size() == 0 && data.center() != 0)
                axis->setRange(data.center() * 0.5, data.center() * 1.5);
        }
        if (plot == m_memoryPlot)
            fitMemoryAxis();
        if (plot == m_speedPlot) {
            QCPRange range;
            if (robustRange(m_stepTime, &range))
                plot->yAxis->setRange(range);
        }
        plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

void RunDashboard::fitMemoryAxis() {
    double highest = 0;
    for (QCPGraph* graph : m_memoryGraphs) {
        bool found = false;
        const QCPRange range = graph->getValueRange(found);
        if (found)
            highest = std::max(highest, range.upper);
    }
    const bool nearTotal =
        m_deviceTotalGiB > 0 && highest >= kShowTotalFromShare * m_deviceTotalGiB;
    m_memoryTotal->setVisible(nearTotal);
    double upper = highest * kMemoryHeadroom;
    if (nearTotal)
        upper = std::max(upper, m_deviceTotalGiB * 1.05);
    m_memoryPlot->yAxis->setRange(0, upper > 0 ? upper : 1.0);
}

void RunDashboard::showHoverValues(QCustomPlot* plot, const QPoint& position) {
    if (m_history.isEmpty())
        return;
    const double step = plot->xAxis->pixelToCoord(position.x());
    QToolTip::showText(plot->mapToGlobal(position), valuesTextAt(step), plot);
}

void RunDashboard::onExportPngClicked() {
    askForFile(
        tr("Save Plots as PNG"), m_runName + QStringLiteral(".png"), tr("PNG images (*.png)"),
        [this](const QString& file, QString* error) { return exportPng(file, error); },
        m_saveButton);
}

void RunDashboard::onExportCsvClicked() {
    askForFile(
        tr("Save Metrics as CSV"), m_runName + QStringLiteral(".csv"), tr("CSV files (*.csv)"),
        [this](const QString& file, QString* error) { return exportCsv(file, error); },
        m_saveButton);
}

void RunDashboard::askForFile(const QString& title, const QString& name, const QString& filter,
                              const std::function<bool(const QString&, QString*)>& write,
                              QWidget* anchor) {
    // Opened, never exec()'d: the plots keep updating behind the dialog.
    auto* dialog = new QFileDialog(this, title, name, filter);
    dialog->setAcceptMode(QFileDialog::AcceptSave);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, [write, anchor](const QString& file) {
        QString error;
        if (!write(file, &error))
            QToolTip::showText(anchor->mapToGlobal(QPoint()), error, anchor);
    });
    dialog->open();
}
