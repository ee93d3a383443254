#include "ui/runs/SweepComparisonDialog.h"

#include "app/runs/LossSmoother.h"
#include "app/runs/RunMemoryTable.h"
#include "app/runs/RunState.h"
#include "app/runs/TrainingRuns.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/runs/MemoryTableWidget.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace {

// Reloading reads every run's steps from the database: at most this often while they train.
constexpr int kReloadDelayMs = 1500;
constexpr double kSmoothing = 0.8;
constexpr int kMaximumPlayers = 4;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Distinct hues for up to a dozen runs, then they repeat darker.
QColor runColor(int index) {
    static const QColor colors[] = {{61, 126, 234}, {231, 76, 60},   {39, 174, 96},
                                    {142, 68, 173}, {243, 156, 18},  {22, 160, 133},
                                    {211, 84, 0},   {52, 73, 94},    {192, 57, 43},
                                    {41, 128, 185}, {127, 140, 141}, {241, 196, 15}};
    constexpr int count = sizeof colors / sizeof colors[0];
    return colors[index % count].darker(100 + 30 * (index / count));
}

double median(QVector<double> values) {
    if (values.isEmpty())
        return std::numeric_limits<double>::quiet_NaN();
    std::sort(values.begin(), values.end());
    return values.at(values.size() / 2);
}

} // namespace

SweepComparisonDialog::SweepComparisonDialog(TrainingRuns* runs, qint64 sweepId, QWidget* parent)
    : QDialog(parent)
    , m_runs(runs)
    , m_sweepId(sweepId)
    , m_title(new QLabel(this))
    , m_plot(new QCustomPlot(this))
    , m_summary(new QTableWidget(this))
    , m_memory(new MemoryTableWidget(this))
    , m_videoLabel(new QLabel(this))
    , m_promptCombo(new QComboBox(this))
    , m_stepCombo(new QComboBox(this))
    , m_playerRow(new QHBoxLayout)
    , m_reloadTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("sweepComparisonDialog"));
    resize(1200, 900);
    m_plot->setObjectName(QStringLiteral("sweepLossPlot"));
    m_plot->setMinimumHeight(220);
    m_plot->legend->setVisible(true);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_summary->setObjectName(QStringLiteral("sweepSummaryTable"));
    m_summary->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_summary->verticalHeader()->hide();
    m_summary->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_summary->setSortingEnabled(true);
    m_promptCombo->setObjectName(QStringLiteral("sweepPromptCombo"));
    m_stepCombo->setObjectName(QStringLiteral("sweepStepCombo"));

    auto* videoChoice = new QHBoxLayout;
    videoChoice->addWidget(m_videoLabel);
    videoChoice->addWidget(m_promptCombo, 1);
    videoChoice->addWidget(m_stepCombo);
    auto* videos = new QWidget(this);
    auto* videoLayout = new QVBoxLayout(videos);
    videoLayout->setContentsMargins(0, 0, 0, 0);
    videoLayout->addLayout(videoChoice);
    videoLayout->addLayout(m_playerRow, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_plot);
    splitter->addWidget(m_summary);
    splitter->addWidget(m_memory);
    splitter->addWidget(videos);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(splitter, 1);

    m_reloadTimer->setSingleShot(true);
    m_reloadTimer->setInterval(kReloadDelayMs);
    connect(m_reloadTimer, &QTimer::timeout, this, &SweepComparisonDialog::reload);
    auto follow = [this](qint64 runId) {
        if (m_runIds.contains(runId) && !m_reloadTimer->isActive())
            m_reloadTimer->start();
    };
    connect(m_runs, &TrainingRuns::stepReported, this, follow);
    connect(m_runs, &TrainingRuns::runStateChanged, this, follow);
    connect(m_runs, &TrainingRuns::memoryReported, this, follow);
    connect(m_runs, &TrainingRuns::validationReady, this,
            [follow](const ValidationVideo& video) { follow(video.runId); });
    connect(m_promptCombo, &QComboBox::activated, this, [this] {
        showVideos(m_promptCombo->currentData().toInt(), m_stepCombo->currentData().toLongLong());
    });
    connect(m_stepCombo, &QComboBox::activated, this, [this] {
        showVideos(m_promptCombo->currentData().toInt(), m_stepCombo->currentData().toLongLong());
    });
    retranslateUi();
}

SweepComparisonDialog::~SweepComparisonDialog() = default;

void SweepComparisonDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void SweepComparisonDialog::retranslateUi() {
    setWindowTitle(tr("Compare Sweep"));
    m_videoLabel->setText(tr("Validation videos of"));
    m_plot->xAxis->setLabel(tr("Step"));
    m_plot->yAxis->setLabel(tr("Loss (smoothed)"));
    reload();
}

void SweepComparisonDialog::reload() {
    const std::optional<SweepRecord> sweep = m_runs->sweep(m_sweepId);
    m_runIds = m_runs->runsOfSweep(m_sweepId);
    m_title->setText(tr("Sweep “%1”: %n run(s)", nullptr, static_cast<int>(m_runIds.size()))
                         .arg(sweep ? sweep->name : QString()));
    const QStringList header{tr("Run"),
                             tr("State"),
                             tr("Steps"),
                             tr("Final loss (smoothed)"),
                             tr("Best loss"),
                             tr("Median step time (s)"),
                             tr("Peak memory (GiB)")};
    m_summary->setSortingEnabled(false);
    m_summary->clear();
    m_summary->setColumnCount(static_cast<int>(header.size()));
    m_summary->setHorizontalHeaderLabels(header);
    m_summary->setRowCount(static_cast<int>(m_runIds.size()));
    m_plot->clearGraphs();
    RunMemoryTable memory;
    const QLocale locale;
    for (int row = 0; row < m_runIds.size(); ++row) {
        const qint64 id = m_runIds.at(row);
        const RunHistoryRow run = m_runs->summary(id);
        const QString label = run.name.section(QStringLiteral(" · "), -1);
        const QVector<StepMetrics> metrics = m_runs->metrics(id);
        const QVector<MemoryPhaseRecord> phases = m_runs->memoryPhases(id);
        memory.append(label, phases);

        QCPGraph* graph = m_plot->addGraph();
        graph->setName(label);
        graph->setPen(QPen(runColor(row), 2));
        LossSmoother smoother(kSmoothing);
        double smoothed = std::numeric_limits<double>::quiet_NaN();
        double best = std::numeric_limits<double>::infinity();
        QVector<double> stepTimes;
        qint64 peak = 0;
        for (const StepMetrics& step : metrics) {
            if (std::isfinite(step.loss)) {
                smoothed = smoother.add(step.loss);
                graph->addData(step.step, smoothed);
                best = std::min(best, step.loss);
            }
            if (std::isfinite(step.stepTimeSeconds))
                stepTimes.append(step.stepTimeSeconds);
            for (const DeviceMemorySample& sample : step.memory)
                peak = std::max(peak, sample.peakBytes);
        }
        for (const MemoryPhaseRecord& phase : phases) {
            for (const DeviceMemorySample& sample : phase.memory)
                peak = std::max(peak, sample.peakBytes);
        }
        auto number = [&](double value, int digits) {
            auto* item = new QTableWidgetItem(
                std::isfinite(value) ? locale.toString(value, 'f', digits) : QString());
            item->setData(Qt::UserRole, value);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            return item;
        };
        auto* name = new QTableWidgetItem(label);
        name->setData(Qt::UserRole, id);
        name->setForeground(runColor(row));
        m_summary->setItem(row, 0, name);
        m_summary->setItem(row, 1, new QTableWidgetItem(RunStateText::display(run.state)));
        m_summary->setItem(row, 2, number(static_cast<double>(run.step), 0));
        m_summary->setItem(row, 3, number(smoothed, 4));
        m_summary->setItem(row, 4, number(std::isfinite(best) ? best : smoothed, 4));
        m_summary->setItem(row, 5, number(median(stepTimes), 3));
        m_summary->setItem(row, 6, number(peak / kGiB, 2));
    }
    m_summary->setSortingEnabled(true);
    m_plot->rescaleAxes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_memory->setTable(memory);
    reloadVideoChoices();
}

void SweepComparisonDialog::reloadVideoChoices() {
    std::set<int> prompts;
    std::set<qint64> steps;
    QHash<int, QString> promptText;
    for (qint64 id : m_runIds) {
        for (const ValidationVideo& video : m_runs->validations(id)) {
            prompts.insert(video.promptIndex);
            steps.insert(video.step);
            promptText.insert(video.promptIndex, video.prompt);
        }
    }
    // What was chosen stays chosen; the first time (nothing chosen yet, which toLongLong() would
    // read as step 0, the "before" of runs validated at the start) the newest step shows.
    const QVariant prompt = m_promptCombo->currentData();
    const QVariant step = m_stepCombo->currentData();
    m_promptCombo->clear();
    for (int index : prompts)
        m_promptCombo->addItem(tr("Prompt %1: %2").arg(index + 1).arg(promptText.value(index)),
                               index);
    m_stepCombo->clear();
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
        m_stepCombo->addItem(tr("Step %1").arg(*it), *it);
    const int promptIndex = prompt.isValid() ? m_promptCombo->findData(prompt) : -1;
    m_promptCombo->setCurrentIndex(promptIndex < 0 ? 0 : promptIndex);
    const int stepIndex = step.isValid() ? m_stepCombo->findData(step) : -1;
    m_stepCombo->setCurrentIndex(stepIndex < 0 ? 0 : stepIndex);
    if (m_players.isEmpty() && m_promptCombo->count() > 0)
        showVideos(m_promptCombo->currentData().toInt(), m_stepCombo->currentData().toLongLong());
}

void SweepComparisonDialog::showVideos(int promptIndex, qint64 step) {
    for (QWidget* column : m_playerColumns) {
        m_playerRow->removeWidget(column);
        column->deleteLater();
    }
    m_playerColumns.clear();
    m_players.clear();
    if (step < 0 && m_stepCombo->count() > 0)
        step = m_stepCombo->itemData(0).toLongLong();
    for (qint64 id : m_runIds) {
        if (m_players.size() >= kMaximumPlayers)
            break;
        for (const ValidationVideo& video : m_runs->validations(id)) {
            if (video.promptIndex != promptIndex || video.step != step ||
                !QFileInfo::exists(video.path))
                continue;
            auto* column = new QWidget(this);
            auto* layout = new QVBoxLayout(column);
            layout->setContentsMargins(0, 0, 0, 0);
            layout->addWidget(
                new QLabel(m_runs->summary(id).name.section(QStringLiteral(" · "), -1), column));
            auto* player = new VideoPlayerWidget(column);
            player->setControls(VideoPlayerWidget::Controls::PlaybackOnly);
            layout->addWidget(player, 1);
            player->openClip(video.path);
            m_playerRow->addWidget(column, 1);
            m_playerColumns.append(column);
            m_players.append(player);
        }
    }
}
