#include "ui/train/TrainPage.h"

#include "ui/runs/DashboardPlot.h"
#include "ui/runs/MemoryTableWidget.h"
#include "ui/runs/SweepComparisonDialog.h"
#include "ui/train/SweepDialog.h"

#include "app/dataset/ClipStore.h"
#include "app/dataset/ConditionImages.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/dataset/PreparedSkips.h"
#include "app/dataset/buckets/BucketListText.h"
#include "app/dataset/buckets/TrainingClipPlan.h"
#include "app/demo/DemoClipCatalog.h"
#include "app/jobs/JobPresets.h"
#include "app/jobs/TrainingPreferences.h"
#include "app/project/Project.h"
#include "app/runs/RunDeletion.h"
#include "app/runs/RunHistoryModel.h"
#include "app/runs/TrainingRuns.h"
#include "ui/dataset/SkippedClipsPanel.h"
#include "ui/runs/RunControlBar.h"
#include "ui/runs/RunDashboard.h"
#include "ui/runs/RunExportDialog.h"
#include "ui/runs/RunFailurePanel.h"
#include "ui/runs/TensorBoardDialog.h"
#include "ui/train/ClipPlanPanel.h"
#include "ui/train/NewRunForm.h"
#include "ui/train/OtherMachinesDialog.h"
#include "ui/train/RunQueuePanel.h"
#include "ui/widgets/FittedScrollArea.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace {

// Long enough that typing a number is one write, short enough that a crash loses little.
constexpr int kSaveFormDelayMs = 500;
// The form is checked within 150 ms of an edit (NewRunForm); its clip settings follow after.
constexpr int kClipSettingsDelayMs = 250;
// The form column folded to its summary: as wide as the action bar wants, no more.
constexpr int kCollapsedFormWidth = 240;
// The least widths of the run's column (its plots in tabs) and of the runs list.
constexpr int kRunColumnWidth = 240;
constexpr int kRunsColumnWidth = 150;
// The validation prompts a demo preset's clips suggest, at most.
constexpr int kSuggestedPrompts = 2;

} // namespace

TrainPage::TrainPage(QWidget* parent)
    : StudioPage(parent)
    , m_saveFormTimer(new QTimer(this))
    , m_clipSettingsTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("trainPage"));
    m_saveFormTimer->setSingleShot(true);
    m_saveFormTimer->setInterval(kSaveFormDelayMs);
    connect(m_saveFormTimer, &QTimer::timeout, this, &TrainPage::saveForm);
    m_clipSettingsTimer->setSingleShot(true);
    m_clipSettingsTimer->setInterval(kClipSettingsDelayMs);
    connect(m_clipSettingsTimer, &QTimer::timeout, this, &TrainPage::updateClipSettings);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setObjectName(QStringLiteral("trainSplitter"));
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(createNewRunPanel());
    splitter->addWidget(createRunPanel());
    splitter->addWidget(createHistoryPanel());
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setStretchFactor(2, 0);
    splitter->setSizes({380, 760, 300});
    m_splitter = splitter;
    // The page must fit a laptop's window: the plots squeeze (to tabs), the form scrolls up and
    // down but keeps the width its fields need (FittedScrollArea), the runs list cuts its names
    // in the middle only in a window narrower than the studio is made for.
    splitter->widget(1)->setMinimumWidth(kRunColumnWidth);
    splitter->widget(2)->setMinimumWidth(kRunsColumnWidth);
    setProjectContent(splitter);
    retranslateUi();
    updateLaunchButtons();
}

TrainPage::~TrainPage() {
    saveForm();
}

QWidget* TrainPage::createNewRunPanel() {
    m_formColumn = new QWidget;
    m_formColumn->setObjectName(QStringLiteral("newRunColumn"));
    m_formTitle = new QLabel(m_formColumn);
    QFont titleFont = m_formTitle->font();
    titleFont.setBold(true);
    m_formTitle->setFont(titleFont);
    m_formToggle = new QToolButton(m_formColumn);
    m_formToggle->setObjectName(QStringLiteral("newRunFormToggle"));
    m_formToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_formToggle->setAutoRaise(true);
    connect(m_formToggle, &QToolButton::clicked, this,
            [this] { setFormCollapsed(!isFormCollapsed()); });
    auto* header = new QHBoxLayout;
    header->addWidget(m_formTitle, 1);
    header->addWidget(m_formToggle);

    auto* panel = new QWidget;
    m_form = new NewRunForm(panel);
    auto* panelLayout = new QVBoxLayout(panel);
    panelLayout->setContentsMargins(0, 0, 4, 0);
    panelLayout->addWidget(m_form);
    panelLayout->addStretch(1);
    // Never shorter than its fields want (the scroll area scrolls instead): a form squeezed to
    // its minimum clips every field's text, as it did once Advanced was open.
    panel->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
    auto* scroll = new FittedScrollArea;
    scroll->setObjectName(QStringLiteral("newRunScroll"));
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(panel);
    m_formScroll = scroll;

    m_formSummary = new QLabel(m_formColumn);
    m_formSummary->setObjectName(QStringLiteral("newRunSummary"));
    m_formSummary->setWordWrap(true);
    m_formSummary->setForegroundRole(QPalette::PlaceholderText);
    m_formSummary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_formSummary->hide();

    auto* layout = new QVBoxLayout(m_formColumn);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    layout->addLayout(header);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_formSummary, 1);
    layout->addWidget(createActionBar(m_formColumn));

    connect(m_form, &NewRunForm::validityChanged, this, &TrainPage::updateLaunchButtons);
    connect(m_form, &NewRunForm::validityChanged, m_clipSettingsTimer, qOverload<>(&QTimer::start));
    // The Dataset page's buckets follow the model's frame and size multiples.
    connect(m_form, &NewRunForm::modelFactsChanged, m_clipSettingsTimer,
            qOverload<>(&QTimer::start));
    connect(m_form, &NewRunForm::jobChanged, this, &TrainPage::onFormChanged);
    connect(m_form, &NewRunForm::datasetImportRequested, this, &TrainPage::datasetImportRequested);
    reloadPresets();
    connect(m_form, &NewRunForm::userPresetsChanged, this, [this](const QString& selectId) {
        reloadPresets();
        if (!selectId.isEmpty())
            m_form->selectPreset(selectId);
    });
    return m_formColumn;
}

// Under the form and outside its scroll area: the run's name, Train, Add to Queue and Sweep, what
// a run would do with the clips, and what the last launch said, always in view.
QWidget* TrainPage::createActionBar(QWidget* parent) {
    auto* bar = new QFrame(parent);
    bar->setObjectName(QStringLiteral("trainActionBar"));
    bar->setFrameShape(QFrame::StyledPanel);
    m_runNameLabel = new QLabel(bar);
    m_runNameEdit = new QLineEdit(bar);
    m_runNameEdit->setObjectName(QStringLiteral("runNameEdit"));
    m_runNameLabel->setBuddy(m_runNameEdit);
    m_trainButton = new QPushButton(bar);
    m_trainButton->setObjectName(QStringLiteral("trainButton"));
    m_trainButton->setDefault(true);
    m_queueButton = new QPushButton(bar);
    m_queueButton->setObjectName(QStringLiteral("addToQueueButton"));
    m_sweepButton = new QPushButton(bar);
    m_sweepButton->setObjectName(QStringLiteral("sweepButton"));
    m_trainClipPlan = new ClipPlanPanel(QStringLiteral("trainClipPlan"), bar);
    m_trainClipPlan->setAlwaysShown(true);
    connect(m_trainClipPlan, &ClipPlanPanel::showClipsRequested, this,
            &TrainPage::showClipsRequested);
    m_launchMessage = new QLabel(bar);
    m_launchMessage->setObjectName(QStringLiteral("launchMessage"));
    m_launchMessage->setWordWrap(true);
    m_launchMessage->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* nameRow = new QHBoxLayout;
    nameRow->addWidget(m_runNameLabel);
    nameRow->addWidget(m_runNameEdit, 1);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_trainButton, 1);
    buttons->addWidget(m_queueButton, 1);
    buttons->addWidget(m_sweepButton);
    auto* layout = new QVBoxLayout(bar);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addLayout(nameRow);
    layout->addLayout(buttons);
    layout->addWidget(m_trainClipPlan);
    layout->addWidget(m_launchMessage);

    m_trainAction = new QAction(this);
    m_trainAction->setObjectName(QStringLiteral("trainAction"));
    m_trainAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    m_queueAction = new QAction(this);
    m_queueAction->setObjectName(QStringLiteral("addToQueueAction"));
    m_queueAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return));
    connect(m_trainButton, &QPushButton::clicked, m_trainAction, &QAction::trigger);
    connect(m_queueButton, &QPushButton::clicked, m_queueAction, &QAction::trigger);
    connect(m_trainAction, &QAction::triggered, this, [this] {
        if (m_trainAction->isEnabled())
            launch(true);
    });
    connect(m_queueAction, &QAction::triggered, this, [this] {
        if (m_queueAction->isEnabled())
            launch(false);
    });
    connect(m_sweepButton, &QPushButton::clicked, this, &TrainPage::openSweepDialog);
    return bar;
}

void TrainPage::setFormCollapsed(bool collapsed) {
    if (collapsed == isFormCollapsed())
        return;
    const QList<int> sizes = m_splitter->sizes();
    if (collapsed)
        m_expandedFormWidth = sizes.value(0);
    m_formScroll->setVisible(!collapsed);
    m_formSummary->setVisible(collapsed);
    updateSummary();
    updateFormToggle();
    // The width the form gives up goes to the plots, and comes back from them.
    const int form = collapsed
                         ? std::min(sizes.value(0), kCollapsedFormWidth)
                         : std::max(m_expandedFormWidth, m_formColumn->minimumSizeHint().width());
    const int change = sizes.value(0) - form;
    if (sizes.size() == 3 && change != 0)
        m_splitter->setSizes({form, std::max(0, sizes.value(1) + change), sizes.value(2)});
}

bool TrainPage::isFormCollapsed() const {
    return m_formSummary && m_formSummary->isVisibleTo(m_formColumn);
}

void TrainPage::updateSummary() {
    if (!isFormCollapsed())
        return;
    const QJsonObject job = m_form->job();
    const TrainingClipSettings clips = TrainingClipSettings::fromJob(job);
    const QString model = QFileInfo(m_form->modelFolder()).fileName();
    QStringList lines{m_form->presetName()};
    if (!model.isEmpty())
        lines.append(tr("Model: %1").arg(model));
    lines.append(tr("%1 steps at learning rate %2, batch %3")
                     .arg(job.value(QStringLiteral("max_steps")).toInteger())
                     .arg(QLocale().toString(job.value(QStringLiteral("optimizer"))
                                                 .toObject()
                                                 .value(QStringLiteral("lr"))
                                                 .toDouble(),
                                             'g', 3))
                     .arg(job.value(QStringLiteral("batch_size")).toInteger()));
    lines.append(tr("Frames %1 at %2")
                     .arg(BucketListText::formatFrameBuckets(clips.buckets.frame_buckets),
                          BucketListText::formatResolutions(clips.buckets.resolutions)));
    if (!m_form->isValid() && !m_form->validationError().isEmpty())
        lines.append(m_form->validationError());
    m_formSummary->setText(lines.join(QLatin1Char('\n')));
}

QWidget* TrainPage::createRunPanel() {
    auto* panel = new QWidget;
    m_controlBar = new RunControlBar(panel);
    m_failurePanel = new RunFailurePanel(panel);
    m_skippedPanel = new SkippedClipsPanel(panel);
    connect(m_skippedPanel, &SkippedClipsPanel::showClipsRequested, this,
            &TrainPage::showClipsRequested);
    m_runClipPlan = new ClipPlanPanel(QStringLiteral("runClipPlan"), panel);
    connect(m_runClipPlan, &ClipPlanPanel::showClipsRequested, this,
            &TrainPage::showClipsRequested);
    m_dashboard = new RunDashboard(panel);
    // The memory table goes with the plots: under their grid, or a tab beside them.
    m_memoryTable = new MemoryTableWidget(panel);
    m_memoryTable->setMinimumHeight(0);
    m_memoryTable->view()->setMinimumHeight(0);
    // It takes the height the plots leave, never holds the page open.
    m_memoryTable->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    m_dashboard->setExtraPanel(m_memoryTable);
    m_compareSweepButton = new QPushButton(panel);
    m_compareSweepButton->setObjectName(QStringLiteral("compareSweepButton"));
    m_compareSweepButton->hide();
    auto* layout = new QVBoxLayout(panel);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(m_controlBar);
    layout->addWidget(m_failurePanel);
    layout->addWidget(m_skippedPanel);
    layout->addWidget(m_runClipPlan);
    layout->addWidget(m_dashboard, 1);
    layout->addWidget(m_compareSweepButton);
    connect(m_compareSweepButton, &QPushButton::clicked, this, [this] {
        if (!m_runs)
            return;
        if (const std::optional<qint64> sweep = m_runs->sweepOf(m_selectedRunId))
            openSweepComparison(*sweep);
    });

    connect(m_controlBar, &RunControlBar::stopRequested, this, [this] {
        if (m_runs && m_selectedRunId)
            m_runs->stop(m_selectedRunId);
    });
    connect(m_controlBar, &RunControlBar::pauseRequested, this, [this] {
        if (m_runs && m_selectedRunId)
            m_runs->pause(m_selectedRunId);
    });
    connect(m_controlBar, &RunControlBar::resumeRequested, this, [this] {
        if (m_runs && m_selectedRunId)
            m_runs->resume(m_selectedRunId);
    });
    connect(m_controlBar, &RunControlBar::sampleNowRequested, this, [this] {
        if (m_runs && m_selectedRunId)
            m_runs->sampleNow(m_selectedRunId);
    });
    connect(m_controlBar, &RunControlBar::saveNowRequested, this, [this] {
        if (m_runs && m_selectedRunId)
            m_runs->saveNow(m_selectedRunId);
    });
    connect(m_controlBar, &RunControlBar::continueRequested, this, &TrainPage::onContinueRequested);
    connect(m_controlBar, &RunControlBar::editRequested, this, &TrainPage::onEditRequested);
    connect(m_controlBar, &RunControlBar::exportRequested, this, &TrainPage::onExportRequested);
    connect(m_controlBar, &RunControlBar::tensorBoardRequested, this,
            &TrainPage::onTensorBoardRequested);
    return panel;
}

QWidget* TrainPage::createHistoryPanel() {
    auto* panel = new QSplitter(Qt::Vertical);
    panel->setObjectName(QStringLiteral("historyAndQueueSplitter"));
    auto* history = new QWidget(panel);
    m_historyTitle = new QLabel(history);
    QFont titleFont = m_historyTitle->font();
    titleFont.setBold(true);
    m_historyTitle->setFont(titleFont);
    m_historyModel = new RunHistoryModel(this);
    m_historyView = new QTableView(history);
    m_historyView->setObjectName(QStringLiteral("runHistoryView"));
    m_historyView->setModel(m_historyModel);
    m_historyView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_historyView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_historyView->verticalHeader()->hide();
    // The column is narrow: the run's name takes what the short columns leave, each on one line.
    m_historyView->setWordWrap(false);
    // Run names differ at their ends ("Run 1128-1958"): a cut keeps both.
    m_historyView->setTextElideMode(Qt::ElideMiddle);
    QHeaderView* columns = m_historyView->horizontalHeader();
    columns->setStretchLastSection(false);
    columns->setSectionResizeMode(QHeaderView::ResizeToContents);
    columns->setSectionResizeMode(RunHistoryModel::NameColumn, QHeaderView::Stretch);
    m_historyView->setColumnHidden(RunHistoryModel::PresetColumn, true);
    const auto showSweepColumn = [this] {
        m_historyView->setColumnHidden(RunHistoryModel::SweepColumn, !m_historyModel->hasSweeps());
    };
    showSweepColumn();
    connect(m_historyModel, &QAbstractItemModel::modelReset, this, showSweepColumn);
    connect(m_historyModel, &QAbstractItemModel::rowsInserted, this, showSweepColumn);
    connect(m_historyModel, &QAbstractItemModel::dataChanged, this, showSweepColumn);
    m_deleteRunAction = new QAction(m_historyView);
    m_deleteRunAction->setObjectName(QStringLiteral("deleteRunAction"));
    m_deleteRunAction->setShortcut(QKeySequence::Delete);
    m_deleteRunAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_historyView->addAction(m_deleteRunAction);
    // The dialog after Train closes; the lines for a run's other machines stay one click away.
    m_otherMachinesAction = new QAction(m_historyView);
    m_otherMachinesAction->setObjectName(QStringLiteral("otherMachinesAction"));
    m_historyView->addAction(m_otherMachinesAction);
    // Before Delete, which comes last.
    m_useRunSettingsAction = new QAction(m_historyView);
    m_useRunSettingsAction->setObjectName(QStringLiteral("useRunSettingsAction"));
    m_openRunFolderAction = new QAction(m_historyView);
    m_openRunFolderAction->setObjectName(QStringLiteral("openRunFolderAction"));
    m_historyView->insertActions(m_deleteRunAction,
                                 {m_useRunSettingsAction, m_openRunFolderAction});
    connect(m_openRunFolderAction, &QAction::triggered, this, &TrainPage::openRunFolder);
    connect(m_useRunSettingsAction, &QAction::triggered, this, [this] {
        if (m_runs && m_selectedRunId)
            useRunSettings(m_selectedRunId,
                           tr("The settings of “%1” are in the form: change what you like, "
                              "then choose Train.")
                               .arg(m_runs->summary(m_selectedRunId).name));
    });
    m_historyView->setContextMenuPolicy(Qt::ActionsContextMenu);
    connect(m_deleteRunAction, &QAction::triggered, this, &TrainPage::onDeleteRunRequested);
    connect(m_otherMachinesAction, &QAction::triggered, this,
            [this] { showOtherMachines(m_selectedRunId); });
    m_compareLabel = new QLabel(history);
    m_compareCombo = new QComboBox(history);
    m_compareCombo->setObjectName(QStringLiteral("compareCombo"));
    auto* compareRow = new QHBoxLayout;
    compareRow->addWidget(m_compareLabel);
    compareRow->addWidget(m_compareCombo, 1);
    auto* layout = new QVBoxLayout(history);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_historyTitle);
    layout->addWidget(m_historyView, 1);
    layout->addLayout(compareRow);

    m_queuePanel = new RunQueuePanel(panel);
    panel->addWidget(history);
    panel->addWidget(m_queuePanel);
    panel->setStretchFactor(0, 3);
    panel->setStretchFactor(1, 1);

    connect(m_historyView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const qint64 id = current.isValid() ? m_historyModel->rowAt(current.row()).id : 0;
                if (id != m_selectedRunId) {
                    m_selectedRunId = id;
                    showSelectedRun();
                }
            });
    connect(m_compareCombo, &QComboBox::activated, this, &TrainPage::onComparisonChosen);
    connect(m_queuePanel, &RunQueuePanel::moveRequested, this, [this](qint64 id, int delta) {
        if (m_runs)
            m_runs->moveQueued(id, delta);
    });
    connect(m_queuePanel, &RunQueuePanel::removeRequested, this, [this](qint64 id) {
        if (m_runs)
            m_runs->removeQueued(id);
    });
    connect(m_queuePanel, &RunQueuePanel::startRequested, this, [this] {
        if (m_runs)
            m_runs->startQueue();
    });
    connect(m_queuePanel, &RunQueuePanel::holdRequested, this, [this] {
        if (m_runs)
            m_runs->holdQueue();
    });
    connect(m_queuePanel, &RunQueuePanel::continuePastFailureChanged, this, [this](bool enabled) {
        if (m_runs)
            m_runs->setContinuePastFailure(enabled);
    });
    return panel;
}

void TrainPage::setTrainingRuns(TrainingRuns* runs) {
    if (m_runs == runs)
        return;
    // MainWindow lets go of the runs before it changes the project: the form still belongs
    // to the project it was filled for.
    saveForm();
    if (m_runs)
        disconnect(m_runs, nullptr, this, nullptr);
    m_runs = runs;
    m_selectedRunId = 0;
    m_form->setConditionImageSource([this](int count) {
        QString ignored; // a clip that cannot be read is left out; the job check says the rest
        return m_runs ? m_runs->conditionImages(count, &ignored) : QStringList();
    });
    if (m_runs) {
        connect(m_runs, &TrainingRuns::runAdded, this, [this](qint64 id) {
            m_historyModel->upsertRow(m_runs->summary(id));
            reloadComparisonChoices();
        });
        connect(m_runs, &TrainingRuns::runStateChanged, this, &TrainPage::onRunStateChanged);
        connect(m_runs, &TrainingRuns::stepReported, this, &TrainPage::onStepReported);
        connect(m_runs, &TrainingRuns::progressChanged, this, &TrainPage::onProgressChanged);
        connect(m_runs, &TrainingRuns::runFailed, this, &TrainPage::onRunFailed);
        connect(m_runs, &TrainingRuns::checkpointWritten, this, [this](qint64 id) {
            if (id == m_selectedRunId)
                m_controlBar->setCanExport(true);
        });
        connect(m_runs, &TrainingRuns::queueChanged, this, &TrainPage::reloadQueue);
        connect(m_runs, &TrainingRuns::runDeleted, this, &TrainPage::onRunDeleted);
        connect(m_runs, &TrainingRuns::memoryReported, this, [this](qint64 id) {
            if (id == m_selectedRunId)
                reloadMemoryTable();
        });
    }
    m_promptsCheckedFor.clear();
    if (m_runs) {
        restoreForm();
        adaptDemoPrompts();
    }
    m_clipSettingsSent = false;
    updateClipSettings();
    reloadHistory();
    reloadQueue();
    if (m_historyModel->rowCount() > 0)
        selectRun(m_historyModel->rowAt(0).id);
    else
        showSelectedRun();
    updateLaunchButtons();
}

void TrainPage::setDefaultModelFolder(const QString& folder) {
    m_defaultModelFolder = folder;
    const QString current = m_form->modelFolder();
    if (!folder.isEmpty() && (current.isEmpty() || !QFileInfo(current).isDir()))
        m_form->setModelFolder(folder);
}

void TrainPage::restoreForm() {
    const std::shared_ptr<Project> current = project();
    if (!current)
        return;
    const TrainingPreferences preferences(*current);
    m_restoringForm = true;
    // The folder the project's form names when it is still there, else the project's default;
    // never the previous project's.
    m_form->setModelFolder(m_defaultModelFolder);
    QJsonObject state = preferences.formState();
    if (!QFileInfo(state.value(QStringLiteral("model")).toString()).isDir())
        state.remove(QStringLiteral("model"));
    m_form->restoreFormState(preferences.presetId(), state);
    m_restoringForm = false;
    m_formChanged = false;
    m_saveFormTimer->stop();
}

void TrainPage::onFormChanged() {
    m_clipSettingsTimer->start();
    updateSummary();
    // Only edits made while a project is open belong to it; restoring is not an edit.
    if (m_restoringForm || !m_runs)
        return;
    adaptDemoPrompts();
    m_formChanged = true;
    m_saveFormTimer->start();
}

void TrainPage::saveForm() {
    m_saveFormTimer->stop();
    const std::shared_ptr<Project> current = project();
    if (!m_formChanged || !current)
        return;
    m_formChanged = false;
    QString error;
    if (!TrainingPreferences(*current).save(m_form->presetId(), m_form->formState(), &error))
        m_launchMessage->setText(error);
}

void TrainPage::selectRun(qint64 runId) {
    const int row = m_historyModel->rowOf(runId);
    if (row < 0)
        return;
    m_historyView->selectionModel()->setCurrentIndex(m_historyModel->index(row, 0),
                                                     QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
}

qint64 TrainPage::selectedRunId() const {
    return m_selectedRunId;
}

NewRunForm* TrainPage::newRunForm() const {
    return m_form;
}

RunDashboard* TrainPage::dashboard() const {
    return m_dashboard;
}

RunControlBar* TrainPage::controlBar() const {
    return m_controlBar;
}

QList<QAction*> TrainPage::runMenuActions() const {
    return QList<QAction*>{m_trainAction, m_queueAction} + m_controlBar->runActions();
}

MemoryTableWidget* TrainPage::memoryTable() const {
    return m_memoryTable;
}

SweepComparisonDialog* TrainPage::openSweepComparison(qint64 sweepId) {
    if (!m_runs)
        return nullptr;
    if (m_sweepComparison)
        m_sweepComparison->close();
    m_sweepComparison = new SweepComparisonDialog(m_runs, sweepId, this);
    m_sweepComparison->setAttribute(Qt::WA_DeleteOnClose);
    m_sweepComparison->show();
    m_sweepComparison->raise();
    return m_sweepComparison;
}

void TrainPage::openSweepDialog() {
    m_form->validateNow();
    if (!m_runs || !m_form->isValid()) {
        m_launchMessage->setText(m_form->validationError());
        return;
    }
    auto* dialog = new SweepDialog(m_form->job(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &SweepDialog::sweepAccepted, this, [this](const QJsonObject& grid) {
        const TrainingRuns::SweepResult result =
            m_runs->launchSweep(m_form->job(), grid, m_form->presetName(), m_form->launchPlan());
        if (!result.succeeded() || !result.error.isEmpty()) {
            m_launchMessage->setText(result.error);
            return;
        }
        m_launchMessage->setText(tr("Sweep “%1”: %n run(s) in the queue.", nullptr,
                                    static_cast<int>(result.runIds.size()))
                                     .arg(grid.value(QStringLiteral("name")).toString()));
        reloadHistory();
        if (!result.runIds.isEmpty())
            selectRun(result.runIds.first());
    });
    dialog->open();
}

void TrainPage::reloadMemoryTable() {
    RunMemoryTable table;
    if (m_runs && m_selectedRunId)
        table.append(m_runs->summary(m_selectedRunId).name, m_runs->memoryPhases(m_selectedRunId));
    m_memoryTable->setTable(table);
}

void TrainPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Train"), tr("Fine-tune a model on your accepted clips and watch it learn"));
    m_runNameLabel->setText(tr("Run &name"));
    m_runNameEdit->setPlaceholderText(suggestedRunName());
    m_trainButton->setText(tr("Train"));
    m_formTitle->setText(tr("New run"));
    updateFormToggle();
    m_queueButton->setText(tr("Add to Queue"));
    m_trainAction->setText(tr("Start &Training"));
    m_queueAction->setText(tr("Add to &Queue"));
    m_sweepButton->setText(tr("Sweep…"));
    m_sweepButton->setToolTip(tr("Queue a run for every combination of a few settings."));
    m_compareSweepButton->setText(tr("Compare the Sweep’s Runs…"));
    m_queueButton->setToolTip(tr("Keep this run in the queue; the queue runs one job after "
                                 "another."));
    m_historyTitle->setText(tr("Runs"));
    m_deleteRunAction->setText(tr("Delete Run…"));
    m_openRunFolderAction->setText(tr("Open Run Folder"));
    m_useRunSettingsAction->setText(tr("Use These Settings"));
    m_useRunSettingsAction->setToolTip(
        tr("Put this run's settings in the new-run form, to train again with changes."));
    m_otherMachinesAction->setText(tr("Commands for the Other Machines…"));
    m_deleteRunAction->setToolTip(
        tr("Delete the run's checkpoints, validation videos and logs to free disk space"));
    m_compareLabel->setText(tr("Compare with"));
    m_historyModel->retranslate();
    reloadComparisonChoices();
    updateLaunchButtons();
}

void TrainPage::onProjectChanged() {
    // MainWindow hands the new project's runs over through setTrainingRuns.
    m_launchMessage->clear();
    updateLaunchButtons();
}

void TrainPage::launch(bool startNow) {
    if (!m_runs)
        return;
    m_form->validateNow();
    if (!m_form->isValid()) {
        m_launchMessage->setText(m_form->validationError());
        return;
    }
    const QString warning = m_form->memoryWarning();
    if (warning.isEmpty()) {
        startRun(startNow);
        return;
    }
    auto* box = new QMessageBox(QMessageBox::Warning, tr("The Run May Not Fit"), warning,
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("memoryWarningBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton* anyway = box->addButton(tr("Start Anyway"), QMessageBox::AcceptRole);
    anyway->setObjectName(QStringLiteral("startAnywayButton"));
    box->addButton(QMessageBox::Cancel);
    connect(anyway, &QPushButton::clicked, this, [this, startNow] { startRun(startNow); });
    box->open();
}

void TrainPage::startRun(bool startNow) {
    if (!m_runs || !m_form->isValid())
        return;
    const QString name = m_runNameEdit->text().trimmed().isEmpty()
                             ? suggestedRunName()
                             : m_runNameEdit->text().trimmed();
    const LaunchPlan plan = m_form->launchPlan();
    const TrainingRuns::LaunchResult result =
        m_runs->launch(m_form->job(), name, m_form->presetName(), startNow, plan);
    if (!result.succeeded()) {
        m_launchMessage->setText(result.error);
        return;
    }
    if (plan.machineCount() > 1)
        showOtherMachines(result.runId);
    m_launchMessage->setText(startNow ? tr("Run “%1” started.").arg(name)
                                      : tr("Run “%1” is in the queue.").arg(name));
    m_announcedRunId = result.runId;
    m_runNameEdit->clear();
    m_runNameEdit->setPlaceholderText(suggestedRunName());
    selectRun(result.runId);
    emit runLaunched(result.runId);
}

void TrainPage::updateLaunchButtons() {
    // Another studio's project: its runs are started there.
    const bool ready = m_runs && m_form->isValid() && !isReadOnly();
    m_controlBar->setReadOnly(isReadOnly());
    m_queuePanel->setReadOnly(isReadOnly());
    m_trainButton->setEnabled(ready);
    m_queueButton->setEnabled(ready);
    // A greyed-out Train says why, wherever the form's own message has scrolled to.
    m_trainButton->setToolTip(m_form->isValid() || !m_runs
                                  ? tr("Export the accepted clips, prepare them and start "
                                       "training now.")
                                  : m_form->validationError());
    updateSummary();
    m_trainAction->setEnabled(ready);
    m_queueAction->setEnabled(ready);
    m_sweepButton->setEnabled(ready);
}

void TrainPage::reloadHistory() {
    m_historyModel->setRows(m_runs ? m_runs->history() : QVector<RunHistoryRow>());
    m_historyView->resizeColumnsToContents();
    reloadComparisonChoices();
    fitRunsColumn();
}

void TrainPage::fitRunsColumn() {
    if (!m_splitter)
        return;
    const QHeaderView* header = m_historyView->horizontalHeader();
    int needed =
        2 * m_historyView->frameWidth() + m_historyView->verticalScrollBar()->sizeHint().width();
    for (int column = 0; column < header->count(); ++column) {
        if (m_historyView->isColumnHidden(column))
            continue;
        needed += column == RunHistoryModel::NameColumn
                      ? std::max(static_cast<const QAbstractItemView*>(m_historyView)
                                     ->sizeHintForColumn(column),
                                 header->sectionSizeHint(column))
                      : header->sectionSize(column);
    }
    // The queue's buttons under the list want their width too.
    needed = std::max({needed, kRunsColumnWidth, m_splitter->widget(2)->minimumSizeHint().width()});
    const QList<int> sizes = m_splitter->sizes();
    if (sizes.size() != 3 || sizes.value(2) == needed || !m_splitter->isVisible())
        return;
    // Narrower to what it needs, the room going to the plots; or wider, so the names read
    // whole, while the plots keep their least width.
    const int middle = sizes.value(1) + sizes.value(2) - needed;
    if (middle >= kRunColumnWidth)
        m_splitter->setSizes({sizes.value(0), middle, needed});
}

void TrainPage::reloadQueue() {
    QVector<RunQueuePanel::Entry> entries;
    if (m_runs) {
        for (qint64 id : m_runs->queuedRuns()) {
            const RunHistoryRow row = m_runs->summary(id);
            entries.append({id, row.name, row.state});
        }
        m_queuePanel->setRunning(m_runs->isQueueRunning());
        m_queuePanel->setContinuePastFailure(m_runs->continuePastFailure());
    }
    m_queuePanel->setEntries(entries);
}

void TrainPage::reloadComparisonChoices() {
    const qint64 chosen = m_compareCombo->currentData().toLongLong();
    m_compareCombo->clear();
    m_compareCombo->addItem(tr("No comparison"), qint64(0));
    for (int row = 0; row < m_historyModel->rowCount(); ++row) {
        const RunHistoryRow run = m_historyModel->rowAt(row);
        if (run.id != m_selectedRunId)
            m_compareCombo->addItem(run.name, run.id);
    }
    const int index = m_compareCombo->findData(chosen);
    m_compareCombo->setCurrentIndex(index < 0 ? 0 : index);
}

void TrainPage::showSelectedRun() {
    m_failurePanel->clearFailure();
    m_dashboard->clearComparison();
    reloadComparisonChoices();
    reloadMemoryTable();
    m_compareSweepButton->setVisible(m_runs && m_selectedRunId &&
                                     m_runs->sweepOf(m_selectedRunId).has_value());
    updateDeleteRunAction();
    reloadSkippedClips();
    if (!m_runs || !m_selectedRunId) {
        m_controlBar->clearRun();
        m_dashboard->clear();
        return;
    }
    const RunHistoryRow run = m_runs->summary(m_selectedRunId);
    m_controlBar->setRun(run.name, run.state);
    const TrainingRuns::Progress progress = m_runs->progress(m_selectedRunId);
    m_controlBar->setProgress(progress.done, progress.total, progress.etaSeconds, progress.unit);
    const QJsonObject job = m_runs->job(m_selectedRunId);
    const QJsonArray prompts = job.value(QStringLiteral("validation"))
                                   .toObject()
                                   .value(QStringLiteral("prompts"))
                                   .toArray();
    m_controlBar->setCanSample(!prompts.isEmpty());
    m_controlBar->setCanExport(!m_runs->checkpointSteps(m_selectedRunId).isEmpty());
    m_dashboard->setRun(run.name, m_runs->metrics(m_selectedRunId));
    if (run.state == RunState::Failed) {
        const TrainingRuns::Failure failure = m_runs->failure(m_selectedRunId);
        m_failurePanel->showFailure(failure.message, failure.hint, failure.lastLines);
        m_controlBar->setCanContinue(failure.canContinue);
    }
}

void TrainPage::reloadSkippedClips() {
    if (!m_runs || !m_selectedRunId) {
        m_skippedPanel->setClips({});
        m_runClipPlan->setPlan({});
        return;
    }
    QString error;
    const QString folder = m_runs->runFolder(m_selectedRunId);
    m_skippedPanel->setClips(PreparedSkips::read(folder, &error));
    m_runClipPlan->setPlan(TrainingClipPlan::forRun(folder, m_runs->job(m_selectedRunId), &error));
    if (!error.isEmpty())
        emit statusMessage(error);
}

void TrainPage::onRunStateChanged(qint64 runId, RunState state) {
    m_historyModel->setState(runId, state);
    // "Run … started." is news only until the run ends; the bar and the failure panel say how.
    if (runId == m_announcedRunId && isEndedRunState(state)) {
        m_launchMessage->clear();
        m_announcedRunId = 0;
    }
    if (runId == m_selectedRunId) {
        updateDeleteRunAction();
        m_controlBar->setState(state);
        // Preparing ends in Training (or Stopped, or Failed), with prepared.jsonl written.
        if (state != RunState::Preparing)
            reloadSkippedClips();
        if (state != RunState::Failed)
            m_failurePanel->clearFailure();
    }
}

void TrainPage::onStepReported(qint64 runId, const StepMetrics& metrics) {
    m_historyModel->setProgress(runId, metrics.step, metrics.loss);
    if (runId == m_selectedRunId)
        m_dashboard->appendStep(metrics);
}

void TrainPage::onProgressChanged(qint64 runId, qint64 done, qint64 total, double etaSeconds,
                                  const QString& unit) {
    if (runId == m_selectedRunId)
        m_controlBar->setProgress(done, total, etaSeconds, unit);
}

void TrainPage::onRunFailed(qint64 runId, const QString& message, const QString& hint,
                            const QStringList& lastLines) {
    m_historyModel->setState(runId, RunState::Failed);
    if (runId == m_selectedRunId) {
        m_failurePanel->showFailure(message, hint, lastLines);
        m_controlBar->setCanContinue(m_runs->failure(runId).canContinue);
    }
    emit statusMessage(tr("Run “%1” failed: %2").arg(m_runs->summary(runId).name, message));
}

void TrainPage::onComparisonChosen(int index) {
    const qint64 other = m_compareCombo->itemData(index).toLongLong();
    if (!m_runs || other == 0) {
        m_dashboard->clearComparison();
        return;
    }
    m_dashboard->setComparison(m_runs->summary(other).name, m_runs->metrics(other));
}

void TrainPage::onContinueRequested() {
    if (!m_runs || !m_selectedRunId)
        return;
    QString error;
    if (!m_runs->continueRun(m_selectedRunId, &error))
        m_failurePanel->showFailure(error, QString(), {});
}

void TrainPage::onEditRequested() {
    if (!m_runs || !m_selectedRunId)
        return;
    useRunSettings(m_selectedRunId, tr("The settings of “%1” are in the form. Fix what the "
                                       "message above names, then choose Train.")
                                        .arg(m_runs->summary(m_selectedRunId).name));
}

void TrainPage::useRunSettings(qint64 runId, const QString& message) {
    const QJsonObject job = m_runs->job(runId);
    m_form->applyOverrides(job);
    const QString model = job.value(QStringLiteral("model")).toString();
    if (!model.isEmpty())
        m_form->setModelFolder(model);
    setFormCollapsed(false);
    m_launchMessage->setText(message);
    m_form->setFocus(Qt::OtherFocusReason);
}

void TrainPage::openRunFolder() {
    if (m_runs && m_selectedRunId)
        QDesktopServices::openUrl(QUrl::fromLocalFile(m_runs->runFolder(m_selectedRunId)));
}

void TrainPage::onExportRequested() {
    if (!m_runs || !m_selectedRunId)
        return;
    auto* dialog = new RunExportDialog(m_enginePath, this);
    for (const RunHistoryRow& row : m_runs->history()) {
        const QVector<qint64> steps = m_runs->checkpointSteps(row.id);
        if (!steps.isEmpty())
            dialog->addRun(row.id, row.name, m_runs->runFolder(row.id), steps,
                           m_runs->job(row.id).value(QStringLiteral("mode")).toString() ==
                               QLatin1String("full"));
    }
    dialog->selectRun(m_selectedRunId);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RunExportDialog::exportFinished, this,
            [this](qint64 runId, qint64 step, const QString& format, const QString& path) {
                if (m_runs)
                    m_runs->recordExport(runId, step, format, path);
                emit statusMessage(tr("Exported to %1").arg(QDir::toNativeSeparators(path)));
            });
    dialog->open();
}

void TrainPage::onDeleteRunRequested() {
    if (!m_runs || !m_selectedRunId)
        return;
    const qint64 runId = m_selectedRunId;
    const RunDeletion::Footprint footprint = RunDeletion::footprint(m_runs->runFolder(runId));
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Delete Run"),
                                tr("Delete the run “%1”?").arg(m_runs->summary(runId).name),
                                QMessageBox::NoButton, this);
    box->setObjectName(QStringLiteral("deleteRunConfirmation"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setInformativeText(
        tr("Its folder goes with its %n checkpoint(s), validation videos and logs: %1 on disk. "
           "This cannot be undone. Adapters you exported elsewhere and the project's latent "
           "cache stay.",
           nullptr, footprint.checkpoints)
            .arg(QLocale().formattedDataSize(footprint.bytes)));
    QPushButton* remove = box->addButton(tr("Delete Run"), QMessageBox::DestructiveRole);
    remove->setObjectName(QStringLiteral("confirmDeleteRunButton"));
    box->setDefaultButton(box->addButton(QMessageBox::Cancel));
    connect(remove, &QPushButton::clicked, this, [this, runId] {
        QString error;
        if (!m_runs || m_runs->deleteRun(runId, &error))
            return;
        auto* failed =
            new QMessageBox(QMessageBox::Warning, tr("Delete Run"), error, QMessageBox::Ok, this);
        failed->setObjectName(QStringLiteral("deleteRunFailed"));
        failed->setAttribute(Qt::WA_DeleteOnClose);
        failed->open();
    });
    box->open();
}

void TrainPage::updateDeleteRunAction() {
    // A run an engine may be working in cannot lose its folder; Stop first.
    m_deleteRunAction->setEnabled(m_runs && m_selectedRunId && !isReadOnly() &&
                                  !isActiveRunState(m_runs->state(m_selectedRunId)));
    m_openRunFolderAction->setEnabled(m_runs && m_selectedRunId);
    m_useRunSettingsAction->setEnabled(m_runs && m_selectedRunId && !isReadOnly());
    m_otherMachinesAction->setVisible(m_runs && m_selectedRunId &&
                                      m_runs->launchPlan(m_selectedRunId).machineCount() > 1);
}

void TrainPage::showOtherMachines(qint64 runId) {
    if (!m_runs || !runId)
        return;
    auto* dialog = new OtherMachinesDialog(
        m_runs->summary(runId).name, m_runs->launchPlan(runId),
        QDir(m_runs->runFolder(runId)).filePath(QStringLiteral("job.json")), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void TrainPage::onRunDeleted(qint64 runId) {
    // Reloading resets the view's selection: the selected run (or, when it was the deleted
    // one, the newest run left) is selected again.
    const qint64 keep = runId == m_selectedRunId ? 0 : m_selectedRunId;
    reloadHistory();
    m_selectedRunId = 0;
    if (keep && m_historyModel->rowOf(keep) >= 0)
        selectRun(keep);
    else if (m_historyModel->rowCount() > 0)
        selectRun(m_historyModel->rowAt(0).id);
    if (m_selectedRunId == 0)
        showSelectedRun();
}

void TrainPage::onTensorBoardRequested() {
    if (!m_runs || !m_selectedRunId)
        return;
    auto* dialog = new TensorBoardDialog(m_runs->runFolder(m_selectedRunId),
                                         TensorBoardCommand::findProgram(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

QString TrainPage::suggestedRunName() const {
    const QString base =
        tr("Run %1").arg(QDateTime::currentDateTime().toString(QStringLiteral("MMdd-HHmm")));
    // Runs started within the same minute would otherwise share a name in the list.
    const auto taken = [this](const QString& name) {
        for (int row = 0; row < m_historyModel->rowCount(); ++row) {
            if (m_historyModel->rowAt(row).name == name)
                return true;
        }
        return false;
    };
    QString name = base;
    for (int copy = 2; taken(name); ++copy)
        name = tr("%1 (%2)").arg(base).arg(copy);
    return name;
}

void TrainPage::setEnginePath(const QString& enginePath) {
    m_enginePath = enginePath;
    m_form->setEnginePath(enginePath);
}

void TrainPage::setUserPresetFolder(const QString& folder) {
    m_userPresetFolder = folder;
    m_form->setUserPresetFolder(folder);
    reloadPresets();
}

void TrainPage::reloadPresets() {
    QStringList problems;
    m_form->setPresets(JobPresets::loadDefault(&problems, m_userPresetFolder));
    if (!problems.isEmpty())
        m_launchMessage->setText(
            tr("Some presets were left out:\n%1").arg(problems.join(QLatin1Char('\n'))));
}

void TrainPage::updateFormToggle() {
    const bool collapsed = isFormCollapsed();
    m_formToggle->setText(collapsed ? tr("Edit Settings") : tr("Hide Settings"));
    m_formToggle->setArrowType(collapsed ? Qt::RightArrow : Qt::DownArrow);
    m_formToggle->setToolTip(collapsed ? tr("Open the settings of the next run.")
                                       : tr("Fold the settings into a summary, so the plots get "
                                            "the room. Train stays here."));
}

void TrainPage::showEvent(QShowEvent* event) {
    StudioPage::showEvent(event);
    m_clipSettingsTimer->start();
    fitRunsColumn();
}

TrainingClipSettings TrainPage::clipSettings() const {
    TrainingClipSettings settings = TrainingClipSettings::fromJob(m_form->job());
    // Read here rather than from the job's task, which the form fills in only once it has
    // checked the model folder.
    const QString model = m_form->modelFolder();
    settings.imageToVideo =
        !model.isEmpty() && QFileInfo(model).isDir() && ConditionImages::isImageToVideoModel(model);
    if (const std::optional<ModelFacts> facts = m_form->modelFacts())
        settings.model = *facts;
    return settings;
}

void TrainPage::updateClipSettings() {
    m_clipSettingsTimer->stop();
    const TrainingClipSettings settings = clipSettings();
    if (!m_clipSettingsSent || settings != m_clipSettings) {
        m_clipSettings = settings;
        m_clipSettingsSent = true;
        emit clipSettingsChanged(settings);
    }
    const std::shared_ptr<Project> current = project();
    if (!current || !m_runs) {
        m_trainClipPlan->setPlan({});
        return;
    }
    QString error;
    const QVector<ClipRecord> clips = ClipStore(*current).allClips(&error);
    m_trainClipPlan->setPlan(TrainingClipPlan::forClips(clips, settings));
    if (!error.isEmpty())
        emit statusMessage(error);
}

void TrainPage::setBucketLists(
    const std::vector<int>& frames,
    const std::vector<tuneframe::common::ResolutionBucket>& resolutions) {
    QJsonArray frameList;
    for (const int count : frames)
        frameList.append(count);
    QJsonArray sizes;
    for (const tuneframe::common::ResolutionBucket& size : resolutions)
        sizes.append(QJsonArray{size.height, size.width});
    QJsonObject dataset = m_form->job().value(QStringLiteral("dataset")).toObject();
    dataset.insert(QStringLiteral("frame_buckets"), frameList);
    dataset.insert(QStringLiteral("resolution_buckets"), sizes);
    m_form->applyOverrides(QJsonObject{{QStringLiteral("dataset"), dataset}});
    onFormChanged();
}

void TrainPage::adaptDemoPrompts() {
    const std::shared_ptr<Project> current = project();
    const QString preset = m_form->presetId();
    if (!current || preset == m_promptsCheckedFor)
        return;
    m_promptsCheckedFor = preset;
    if (DatasetPreferences(*current).triggerWord() == DemoClipCatalog::kTriggerWord)
        return; // the demo project: its prompts are the presets' own
    const QJsonArray prompts = m_form->job()
                                   .value(QStringLiteral("validation"))
                                   .toObject()
                                   .value(QStringLiteral("prompts"))
                                   .toArray();
    bool demoPrompts = false;
    for (const QJsonValue& prompt : prompts)
        demoPrompts = demoPrompts || prompt.toString().contains(DemoClipCatalog::kTriggerWord);
    if (!demoPrompts)
        return;
    // The project's own captions show what the run learned; the demo's describe other clips.
    QJsonArray captions;
    QString error;
    for (const ClipRecord& clip : ClipStore(*current).allClips(&error)) {
        if (clip.status == ClipStatus::Accepted && clip.hasCaption() &&
            captions.size() < kSuggestedPrompts)
            captions.append(clip.caption.simplified());
    }
    QJsonObject validation = m_form->job().value(QStringLiteral("validation")).toObject();
    validation.insert(QStringLiteral("prompts"), captions);
    m_form->applyOverrides(QJsonObject{{QStringLiteral("validation"), validation}});
}
