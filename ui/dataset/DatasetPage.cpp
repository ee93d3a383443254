#include "ui/dataset/DatasetPage.h"

#include "app/captions/CaptionTokenCounter.h"
#include "app/dataset/ClipCuration.h"
#include "app/dataset/ClipFilterModel.h"
#include "app/dataset/ClipStore.h"
#include "app/dataset/ClipTableModel.h"
#include "app/dataset/DatasetPreferences.h"
#include "app/dataset/buckets/BucketPreview.h"
#include "app/playback/PlaybackEngine.h"
#include "app/playback/ThumbnailCache.h"
#include "app/project/Project.h"
#include "ui/dataset/ClipFilterBar.h"
#include "ui/dataset/ClipGridView.h"
#include "ui/dataset/ClipInspectorPanel.h"
#include "ui/dataset/ClipTableView.h"
#include "ui/dataset/DatasetActions.h"
#include "ui/dataset/DatasetBulkCommands.h"
#include "ui/import/ClipImportPanel.h"
#include "ui/playback/VideoPlayerWidget.h"
#include "ui/widgets/EmptyStateWidget.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMap>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace {

// Past this many changed clips a full reload is cheaper than inserting rows one by one.
constexpr int kIncrementalRefreshLimit = 64;
constexpr int kChoicesDelayMs = 100;
constexpr int kInspectorMinimumWidth = 300;
constexpr int kGridMinimumWidth = 220;

const ClipTableModel::Column kSortColumns[] = {
    ClipTableModel::NameColumn,       ClipTableModel::StatusColumn,   ClipTableModel::RatingColumn,
    ClipTableModel::ResolutionColumn, ClipTableModel::DurationColumn, ClipTableModel::FramesColumn,
    ClipTableModel::BucketColumn,     ClipTableModel::CaptionColumn};

} // namespace

DatasetPage::DatasetPage(QWidget* parent)
    : StudioPage(parent)
    , m_filterModel(new ClipFilterModel(this))
    , m_tokenCounter(new CaptionTokenCounter(this))
    , m_actions(new DatasetActions(this))
    , m_bulkCommands(new DatasetBulkCommands(this))
    , m_contentStack(new QStackedWidget(this))
    , m_projectEmptyState(new EmptyStateWidget(this)) {
    setObjectName(QStringLiteral("datasetPage"));
    setAcceptDrops(true);
    m_projectEmptyState->setObjectName(QStringLiteral("projectEmptyState"));
    m_projectEmptyState->setIcon(QIcon(QStringLiteral(":/icons/dataset.svg")));
    m_emptyImportButton = m_projectEmptyState->addButton(QStringLiteral("emptyImportButton"));

    m_importPanel = new ClipImportPanel(this);
    connect(m_importPanel, &ClipImportPanel::importStarted, this, &DatasetPage::updateActions);
    connect(m_importPanel, &ClipImportPanel::importFinished, this, &DatasetPage::onImportFinished);

    m_browser = createBrowser();
    m_contentStack->addWidget(m_projectEmptyState);
    m_contentStack->addWidget(m_browser);

    auto* content = new QWidget(this);
    content->setObjectName(QStringLiteral("datasetContent"));
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(0, 8, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(m_importPanel);
    layout->addWidget(m_contentStack, 1);
    setProjectContent(content);

    m_choicesTimer.setSingleShot(true);
    m_choicesTimer.setInterval(kChoicesDelayMs);
    connect(&m_choicesTimer, &QTimer::timeout, this, &DatasetPage::updateFilterChoices);
    m_countsTimer.setSingleShot(true);
    m_countsTimer.setInterval(0);
    connect(&m_countsTimer, &QTimer::timeout, this, &DatasetPage::updateCounts);

    connectActions();
    retranslateUi();
    setViewMode(ViewMode::Grid);
    updateActions();
}

DatasetPage::~DatasetPage() {
    closeSession();
}

QWidget* DatasetPage::createBrowser() {
    auto* browser = new QWidget(this);
    browser->setObjectName(QStringLiteral("clipBrowser"));
    m_filterBar = new ClipFilterBar(browser);
    m_filterBar->setObjectName(QStringLiteral("clipFilterBar"));
    m_gridView = new ClipGridView(browser);
    m_gridView->setObjectName(QStringLiteral("clipGridView"));
    m_tableView = new ClipTableView(browser);
    m_tableView->setObjectName(QStringLiteral("clipTableView"));
    m_tableView->setModel(m_filterModel);
    m_gridView->setModel(m_filterModel);
    m_gridView->setModelColumn(ClipTableModel::NameColumn);
    // One selection for both views: switching keeps what the user picked.
    QItemSelectionModel* gridSelection = m_gridView->selectionModel();
    m_gridView->setSelectionModel(m_tableView->selectionModel());
    delete gridSelection;
    m_viewStack = new QStackedWidget(browser);
    m_viewStack->setObjectName(QStringLiteral("clipViewStack"));
    m_viewStack->addWidget(m_gridView);
    m_viewStack->addWidget(m_tableView);
    m_inspector = new ClipInspectorPanel(browser);
    m_countLabel = new QLabel(browser);
    m_countLabel->setObjectName(QStringLiteral("clipCountLabel"));
    m_countLabel->setForegroundRole(QPalette::PlaceholderText);

    auto* left = new QWidget(browser);
    left->setMinimumWidth(kGridMinimumWidth);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->setSpacing(4);
    leftLayout->addWidget(m_viewStack, 1);
    leftLayout->addWidget(m_countLabel);

    // Scrolls instead of widening the window: the player's controls alone are wider than a
    // small window leaves for the panel.
    auto* inspectorScroll = new QScrollArea(browser);
    inspectorScroll->setObjectName(QStringLiteral("inspectorScrollArea"));
    inspectorScroll->setWidget(m_inspector);
    inspectorScroll->setWidgetResizable(true);
    inspectorScroll->setFrameShape(QFrame::NoFrame);
    inspectorScroll->setMinimumWidth(kInspectorMinimumWidth);

    auto* splitter = new QSplitter(Qt::Horizontal, browser);
    splitter->setObjectName(QStringLiteral("datasetSplitter"));
    splitter->addWidget(left);
    splitter->addWidget(inspectorScroll);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    m_splitter = splitter;
    m_inspectorScroll = inspectorScroll;

    auto* layout = new QVBoxLayout(browser);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(6);
    layout->addWidget(createToolBar());
    layout->addWidget(m_filterBar);
    layout->addWidget(splitter, 1);

    m_inspector->setStatusActions(m_actions->action(DatasetActions::Id::Accept),
                                  m_actions->action(DatasetActions::Id::NeedsReview),
                                  m_actions->action(DatasetActions::Id::Reject));
    m_inspector->setInsertTriggerWordAction(
        m_actions->action(DatasetActions::Id::InsertTriggerWord));
    setTabOrder(m_filterBar, m_gridView);
    setTabOrder(m_gridView, m_tableView);
    setTabOrder(m_tableView, m_inspector);
    return browser;
}

QWidget* DatasetPage::createToolBar() {
    using Id = DatasetActions::Id;
    auto* bar = new QWidget(this);
    bar->setObjectName(QStringLiteral("datasetToolBar"));
    auto toolButton = [bar](QAction* action, const QString& objectName) {
        auto* button = new QToolButton(bar);
        button->setObjectName(objectName);
        button->setDefaultAction(action);
        button->setToolButtonStyle(Qt::ToolButtonTextOnly);
        button->setAutoRaise(true);
        return button;
    };
    m_importButton =
        toolButton(m_actions->action(Id::ImportFolder), QStringLiteral("importButton"));
    auto* importMenu = new QMenu(m_importButton);
    importMenu->addAction(m_actions->action(Id::ImportFolder));
    importMenu->addAction(m_actions->action(Id::ImportFiles));
    m_importButton->setMenu(importMenu);
    m_importButton->setPopupMode(QToolButton::MenuButtonPopup);

    m_editMenuButton = new QToolButton(bar);
    m_editMenuButton->setObjectName(QStringLiteral("bulkEditButton"));
    m_editMenuButton->setPopupMode(QToolButton::InstantPopup);
    m_editMenuButton->setAutoRaise(true);
    auto* editMenu = new QMenu(m_editMenuButton);
    editMenu->addActions({m_actions->action(Id::FindReplace), m_actions->action(Id::AddTriggerWord),
                          m_actions->action(Id::AddTags), m_actions->action(Id::RemoveTags)});
    editMenu->addSeparator();
    editMenu->addAction(m_actions->action(Id::WriteCaptions));
    m_editMenuButton->setMenu(editMenu);

    m_sortLabel = new QLabel(bar);
    m_sortBox = new QComboBox(bar);
    m_sortBox->setObjectName(QStringLiteral("sortBox"));
    m_sortBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_sortBox->setMinimumContentsLength(6);
    for (const ClipTableModel::Column column : kSortColumns)
        m_sortBox->addItem(QString(), static_cast<int>(column));
    m_sortLabel->setBuddy(m_sortBox);
    m_sortOrderButton = new QToolButton(bar);
    m_sortOrderButton->setObjectName(QStringLiteral("sortOrderButton"));
    m_sortOrderButton->setCheckable(true);
    m_sortOrderButton->setAutoRaise(true);
    m_sortOrderButton->setArrowType(Qt::UpArrow);
    connect(m_sortBox, &QComboBox::activated, this, &DatasetPage::onSortChosen);
    connect(m_sortOrderButton, &QToolButton::toggled, this, &DatasetPage::onSortChosen);
    connect(m_tableView->horizontalHeader(), &QHeaderView::sortIndicatorChanged, this,
            &DatasetPage::onSortIndicatorChanged);

    auto* layout = new QHBoxLayout(bar);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_importButton);
    layout->addSpacing(8);
    for (const auto& [id, name] : {std::pair{Id::GridView, QStringLiteral("gridButton")},
                                   std::pair{Id::TableView, QStringLiteral("tableButton")}}) {
        QToolButton* button = toolButton(m_actions->action(id), name);
        button->setToolButtonStyle(Qt::ToolButtonIconOnly);
        layout->addWidget(button);
    }
    layout->addSpacing(8);
    layout->addWidget(m_sortLabel);
    layout->addWidget(m_sortBox);
    layout->addWidget(m_sortOrderButton);
    layout->addStretch(1);
    layout->addWidget(m_editMenuButton);
    layout->addWidget(
        toolButton(m_actions->action(Id::BucketPreview), QStringLiteral("bucketPreviewButton")));
    layout->addWidget(toolButton(m_actions->action(Id::Export), QStringLiteral("exportButton")));
    m_tableView->sortByColumn(ClipTableModel::NameColumn, Qt::AscendingOrder);
    return bar;
}

void DatasetPage::connectActions() {
    using Id = DatasetActions::Id;
    connect(m_actions->action(Id::ImportFolder), &QAction::triggered, m_importPanel,
            &ClipImportPanel::chooseFolder);
    connect(m_actions->action(Id::ImportFiles), &QAction::triggered, m_importPanel,
            &ClipImportPanel::chooseFiles);
    connect(m_emptyImportButton, &QPushButton::clicked, m_importPanel,
            &ClipImportPanel::chooseFolder);
    connect(m_importPanel, &ClipImportPanel::showFlaggedRequested, this, [this] {
        m_filterBar->clearFilters();
        m_filterBar->setProblemsOnly(true);
    });
    connect(m_actions->action(Id::GridView), &QAction::triggered, this,
            [this] { setViewMode(ViewMode::Grid); });
    connect(m_actions->action(Id::TableView), &QAction::triggered, this,
            [this] { setViewMode(ViewMode::Table); });
    connect(m_actions->action(Id::FindClips), &QAction::triggered, m_filterBar,
            &ClipFilterBar::focusSearch);
    connect(m_actions->action(Id::EditCaption), &QAction::triggered, m_inspector,
            &ClipInspectorPanel::focusCaption);
    connect(m_actions->action(Id::Undo), &QAction::triggered, this, &DatasetPage::undo);
    connect(m_actions->action(Id::Redo), &QAction::triggered, this, &DatasetPage::redo);
    connect(m_actions->action(Id::Accept), &QAction::triggered, this,
            [this] { setStatus(static_cast<int>(ClipStatus::Accepted)); });
    connect(m_actions->action(Id::NeedsReview), &QAction::triggered, this,
            [this] { setStatus(static_cast<int>(ClipStatus::NeedsReview)); });
    connect(m_actions->action(Id::Reject), &QAction::triggered, this,
            [this] { setStatus(static_cast<int>(ClipStatus::Rejected)); });
    connect(m_actions->action(Id::RemoveClips), &QAction::triggered, this,
            &DatasetPage::removeSelectedClips);
    const QList<QAction*> ratings = m_actions->ratingActions();
    for (int rating = 0; rating < ratings.size(); ++rating)
        connect(ratings.at(rating), &QAction::triggered, this,
                [this, rating] { setRating(rating); });
    connect(m_actions->action(Id::InsertTriggerWord), &QAction::triggered, this, [this] {
        m_bulkCommands->withTriggerWord(
            [this](const QString& word) { m_inspector->insertTriggerWord(word); });
    });
    connect(m_actions->action(Id::FindReplace), &QAction::triggered, this,
            [this] { m_bulkCommands->findReplace(bulkRecords()); });
    connect(m_actions->action(Id::AddTriggerWord), &QAction::triggered, this,
            [this] { m_bulkCommands->addTriggerWord(bulkRecords()); });
    connect(m_actions->action(Id::AddTags), &QAction::triggered, this,
            [this] { m_bulkCommands->addTags(selectedClipIds()); });
    connect(m_actions->action(Id::RemoveTags), &QAction::triggered, this, [this] {
        QStringList tags;
        for (const ClipRecord& clip : selectedRecords())
            tags.append(clip.tags);
        tags.removeDuplicates();
        tags.sort(Qt::CaseInsensitive);
        m_bulkCommands->removeTags(selectedClipIds(), tags);
    });
    connect(m_actions->action(Id::WriteCaptions), &QAction::triggered, this,
            [this] { m_bulkCommands->writeCaptions(bulkRecords()); });
    connect(m_actions->action(Id::Export), &QAction::triggered, this,
            [this] { m_bulkCommands->exportDataset(selectedRecords(), shownRecords()); });
    connect(m_actions->action(Id::BucketPreview), &QAction::triggered, m_bulkCommands,
            &DatasetBulkCommands::showBucketPreview);

    connect(m_bulkCommands, &DatasetBulkCommands::statusMessage, this, &DatasetPage::statusMessage);
    connect(m_bulkCommands, &DatasetBulkCommands::captionsWritten, this,
            &DatasetPage::updateActions);
    connect(m_bulkCommands, &DatasetBulkCommands::bucketConfigChanged, this,
            [this](const tuneframe::common::BucketConfig& config) {
                if (!m_clipModel || !m_sessionProject || isReadOnly())
                    return;
                // Shown at once; the Train form takes the lists and sends them back.
                m_clipModel->setBucketConfig(config);
                m_choicesTimer.start();
                emit bucketListsEdited(config.frame_buckets, config.resolutions);
            });
    connect(m_filterBar, &ClipFilterBar::filterChanged, this, [this](const ClipFilter& filter) {
        m_filterModel->setFilter(filter);
        updateCounts();
    });
    connect(m_tableView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &DatasetPage::onSelectionChanged);
    // Rows come and go one at a time during a bulk edit; the counts follow once per turn.
    connect(m_filterModel, &QAbstractItemModel::rowsInserted, &m_countsTimer,
            qOverload<>(&QTimer::start));
    connect(m_filterModel, &QAbstractItemModel::rowsRemoved, &m_countsTimer,
            qOverload<>(&QTimer::start));
    connect(m_filterModel, &QAbstractItemModel::modelReset, &m_countsTimer,
            qOverload<>(&QTimer::start));
    connect(m_filterModel, &QAbstractItemModel::layoutChanged, &m_countsTimer,
            qOverload<>(&QTimer::start));
    connect(m_gridView, &QAbstractItemView::activated, m_inspector,
            &ClipInspectorPanel::focusCaption);
    connect(m_inspector->player()->engine(), &PlaybackEngine::clipOpened, this,
            [this] { QTimer::singleShot(0, this, &DatasetPage::fitInspector); });
    connect(m_inspector, &ClipInspectorPanel::undoRequested, this, &DatasetPage::undo);
    connect(m_inspector, &ClipInspectorPanel::redoRequested, this, &DatasetPage::redo);
    connect(m_inspector, &ClipInspectorPanel::leaveRequested, this,
            [this] { m_viewStack->currentWidget()->setFocus(Qt::ShortcutFocusReason); });
}

bool DatasetPage::importPaths(const QStringList& paths) {
    return m_importPanel->importPaths(paths);
}

bool DatasetPage::importFactoryDataset(const FactoryDataset& dataset) {
    return m_importPanel->importFactoryDataset(dataset);
}

bool DatasetPage::isImporting() const {
    return m_importPanel->isImporting();
}

void DatasetPage::cancelImport() {
    m_importPanel->cancel();
}

void DatasetPage::reloadClips() {
    if (!m_clipModel)
        return;
    reloadKeepingSelection();
    if (!m_tokenCounter->isReady())
        m_tokenCounter->load(m_sessionProject->folder());
}

void DatasetPage::onProjectChangedElsewhere() {
    // The holder's edits, imports and removals; the selection stays where the clips do.
    reloadClips();
}

DatasetPage::ViewMode DatasetPage::viewMode() const {
    return m_viewStack->currentWidget() == m_tableView ? ViewMode::Table : ViewMode::Grid;
}

void DatasetPage::setViewMode(ViewMode mode) {
    QAbstractItemView* view =
        mode == ViewMode::Table ? static_cast<QAbstractItemView*>(m_tableView) : m_gridView;
    const bool hadFocus = m_viewStack->currentWidget() && m_viewStack->currentWidget()->hasFocus();
    m_viewStack->setCurrentWidget(view);
    m_actions
        ->action(mode == ViewMode::Table ? DatasetActions::Id::TableView
                                         : DatasetActions::Id::GridView)
        ->setChecked(true);
    if (view->currentIndex().isValid())
        view->scrollTo(view->currentIndex());
    if (hadFocus || isVisible())
        view->setFocus(Qt::OtherFocusReason);
}

QVector<qint64> DatasetPage::selectedClipIds() const {
    // By ranges, not by index: a selection of every clip is one range of ten columns.
    QSet<int> seen;
    QList<int> rows;
    const QItemSelection selection = m_tableView->selectionModel()->selection();
    for (const QItemSelectionRange& range : selection) {
        for (int row = range.top(); row <= range.bottom(); ++row) {
            if (!seen.contains(row)) {
                seen.insert(row);
                rows.append(row);
            }
        }
    }
    std::sort(rows.begin(), rows.end());
    QVector<qint64> ids;
    ids.reserve(rows.size());
    for (const int row : rows)
        ids.append(m_filterModel->index(row, 0).data(ClipTableModel::ClipIdRole).toLongLong());
    return ids;
}

void DatasetPage::selectClips(const QVector<qint64>& clipIds) {
    if (!m_clipModel)
        return;
    QItemSelection selection;
    QModelIndex first;
    for (const qint64 id : clipIds) {
        const int sourceRow = m_clipModel->rowOfClip(id);
        if (sourceRow < 0)
            continue;
        const QModelIndex index = m_filterModel->mapFromSource(m_clipModel->index(sourceRow, 0));
        if (!index.isValid())
            continue;
        if (!first.isValid())
            first = index;
        selection.select(index, index.siblingAtColumn(ClipTableModel::ColumnCount - 1));
    }
    QItemSelectionModel* model = m_tableView->selectionModel();
    model->select(selection, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    if (first.isValid()) {
        model->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        m_gridView->scrollTo(first);
        m_tableView->scrollTo(first);
    }
}

int DatasetPage::showClipsAt(const QStringList& paths) {
    if (!m_clipModel)
        return 0;
    QSet<QString> wanted;
    for (const QString& path : paths)
        wanted.insert(QDir::cleanPath(path));
    QVector<qint64> ids;
    bool hidden = false;
    for (int row = 0; row < m_clipModel->rowCount(); ++row) {
        const ClipRecord& clip = m_clipModel->record(row);
        if (!wanted.contains(QDir::cleanPath(clip.path)))
            continue;
        ids.append(clip.id);
        hidden = hidden || !m_filterModel->mapFromSource(m_clipModel->index(row, 0)).isValid();
    }
    if (hidden)
        m_filterBar->clearFilters();
    selectClips(ids);
    return static_cast<int>(ids.size());
}

ClipTableModel* DatasetPage::clipModel() const {
    return m_clipModel.get();
}

ClipFilterModel* DatasetPage::filterModel() const {
    return m_filterModel;
}

ClipInspectorPanel* DatasetPage::inspector() const {
    return m_inspector;
}

DatasetActions* DatasetPage::actions() const {
    return m_actions;
}

DatasetBulkCommands* DatasetPage::bulkCommands() const {
    return m_bulkCommands;
}

QList<QAction*> DatasetPage::editMenuActions() const {
    return m_actions->editMenuActions();
}

QList<QAction*> DatasetPage::datasetMenuActions() const {
    return m_actions->datasetMenuActions();
}

void DatasetPage::onProjectChanged() {
    closeSession();
    if (project())
        openSession();
    updateEmptyState();
    updateActions();
}

void DatasetPage::openSession() {
    m_sessionProject = project();
    const Project& current = *m_sessionProject;
    m_clipModel = std::make_unique<ClipTableModel>(current);
    // The buckets as the form's model takes them (its VAE's and patches' multiples).
    m_clipModel->setBucketConfig(m_hasClipSettings ? m_clipSettings.modelBuckets()
                                                   : DatasetPreferences(current).bucketConfig());
    m_curation = std::make_unique<ClipCuration>(current, m_clipModel.get());
    m_thumbnails =
        std::make_unique<ThumbnailCache>(ThumbnailCache::folderIn(current.cacheFolder()));
    connect(m_clipModel.get(), &ClipTableModel::loadFailed, this, [this](const QString& message) {
        showError(QStringLiteral("clipLoadError"), tr("Could Not Read the Clips"), message);
    });
    connect(m_clipModel.get(), &ClipTableModel::editFailed, this, [this](const QString& message) {
        showError(QStringLiteral("clipEditError"), tr("Could Not Save the Change"), message);
    });
    connect(m_curation.get(), &ClipCuration::editFailed, this, [this](const QString& message) {
        showError(QStringLiteral("clipEditError"), tr("Could Not Save the Change"), message);
    });
    connect(m_curation.get(), &ClipCuration::captionHistoryChanged, this,
            &DatasetPage::updateUndoActions);
    connect(m_curation.get(), &ClipCuration::clipsChanged, this, [this] {
        m_choicesTimer.start();
        updateActions();
    });
    connect(m_clipModel.get(), &QAbstractItemModel::dataChanged, this,
            [this] { m_choicesTimer.start(); });

    m_clipModel->reload();
    m_filterModel->setSourceModel(m_clipModel.get());
    m_gridView->setThumbnailCache(m_thumbnails.get());
    m_inspector->setSession(m_clipModel.get(), m_curation.get(), m_tokenCounter);
    m_bulkCommands->setSession(m_sessionProject, m_clipModel.get(), m_curation.get());
    m_importPanel->setSession(m_sessionProject, m_clipModel.get());
    m_filterBar->clearFilters();
    m_tokenCounter->load(current.folder());
    updateFilterChoices();
    updateUndoActions();
    updateCounts();
}

void DatasetPage::closeSession() {
    if (!m_sessionProject)
        return;
    m_inspector->commitPendingEdits();
    m_inspector->setSession(nullptr, nullptr, nullptr);
    m_bulkCommands->setSession(nullptr, nullptr, nullptr);
    m_gridView->setThumbnailCache(nullptr);
    m_filterModel->setSourceModel(nullptr);
    m_tokenCounter->clear();
    // Threads first: the import and thumbnail threads read through the project.
    m_importPanel->setSession(nullptr, nullptr);
    m_thumbnails.reset();
    m_curation.reset();
    m_clipModel.reset();
    m_sessionProject.reset();
}

void DatasetPage::reloadKeepingSelection() {
    const QVector<qint64> selected = selectedClipIds();
    m_clipModel->reload();
    selectClips(selected);
    updateEmptyState();
    m_choicesTimer.start();
}

void DatasetPage::updateEmptyState() {
    const bool hasClips = m_clipModel && m_clipModel->rowCount() > 0;
    m_contentStack->setCurrentWidget(hasClips ? m_browser : m_projectEmptyState);
}

void DatasetPage::setTrainingClipSettings(const TrainingClipSettings& settings) {
    m_clipSettings = settings;
    m_hasClipSettings = true;
    m_inspector->setTrainingClipSettings(settings);
    m_bulkCommands->setClipSettings(settings);
    if (!m_clipModel)
        return;
    m_clipModel->setBucketConfig(settings.modelBuckets());
    m_choicesTimer.start();
    m_countsTimer.start();
}

void DatasetPage::setPreparingNote(const QString& title, const QString& body) {
    m_preparingTitle = title;
    m_preparingBody = body;
    retranslateUi();
    updateActions();
}

void DatasetPage::fitInspector() {
    // The inspector grows to what its player and buttons need (known once a clip is open),
    // taking the room from the grid down to the grid's minimum; it never shrinks on its own,
    // so a width the user dragged stays.
    if (!m_browser->isVisible())
        return;
    const int needed = m_inspector->minimumSizeHint().width() +
                       m_inspectorScroll->verticalScrollBar()->sizeHint().width();
    const QList<int> sizes = m_splitter->sizes();
    if (sizes.size() != 2 || sizes.at(1) >= needed)
        return;
    const int total = sizes.at(0) + sizes.at(1);
    const int inspector = std::min(needed, std::max(sizes.at(1), total - kGridMinimumWidth));
    m_splitter->setSizes({total - inspector, inspector});
}

void DatasetPage::updateActions() {
    using Id = DatasetActions::Id;
    const bool active = m_sessionProject != nullptr && m_pageShown;
    // Another studio's project is looked at here, not changed: its clips are imported, edited
    // and removed there.
    const bool edits = !isReadOnly();
    const QVector<qint64> selected = m_sessionProject ? selectedClipIds() : QVector<qint64>();
    const bool hasSelection = active && !selected.isEmpty();
    const bool editsSelection = hasSelection && edits;
    const bool single = active && selected.size() == 1 && edits;
    const bool hasShown = active && m_filterModel->rowCount() > 0;
    const bool importing = isImporting();
    m_actions->action(Id::ImportFolder)->setEnabled(active && !importing && edits);
    m_actions->action(Id::ImportFiles)->setEnabled(active && !importing && edits);
    m_emptyImportButton->setEnabled(m_sessionProject != nullptr && !importing && edits);
    for (const Id id : {Id::GridView, Id::TableView, Id::FindClips, Id::BucketPreview})
        m_actions->action(id)->setEnabled(active);
    for (const Id id :
         {Id::Accept, Id::NeedsReview, Id::Reject, Id::AddTags, Id::RemoveTags, Id::RemoveClips})
        m_actions->action(id)->setEnabled(editsSelection);
    for (QAction* action : m_actions->ratingActions())
        action->setEnabled(editsSelection);
    m_actions->action(Id::EditCaption)->setEnabled(single);
    m_actions->action(Id::InsertTriggerWord)->setEnabled(single);
    for (const Id id : {Id::FindReplace, Id::AddTriggerWord})
        m_actions->action(id)->setEnabled((hasSelection || hasShown) && edits);
    m_actions->action(Id::WriteCaptions)
        ->setEnabled((hasSelection || hasShown) && edits && !m_bulkCommands->isWritingCaptions());
    m_actions->action(Id::Export)->setEnabled(hasShown || hasSelection);
    m_editMenuButton->setEnabled((hasSelection || hasShown) && edits);
    m_inspector->setReadOnly(!edits);

    // The status buttons show the selection's status when it has one.
    QSet<int> statuses;
    if (m_clipModel) {
        for (const qint64 id : selected) {
            const int row = m_clipModel->rowOfClip(id);
            if (row >= 0)
                statuses.insert(static_cast<int>(m_clipModel->record(row).status));
        }
    }
    const int status = statuses.size() == 1 ? *statuses.begin() : -1;
    m_actions->action(Id::Accept)->setChecked(status == static_cast<int>(ClipStatus::Accepted));
    m_actions->action(Id::NeedsReview)
        ->setChecked(status == static_cast<int>(ClipStatus::NeedsReview));
    m_actions->action(Id::Reject)->setChecked(status == static_cast<int>(ClipStatus::Rejected));
    updateUndoActions();
}

void DatasetPage::updateUndoActions() {
    using Id = DatasetActions::Id;
    const bool active = m_curation && m_pageShown && !isReadOnly();
    m_actions->action(Id::Undo)->setEnabled(active && m_curation->canUndo());
    m_actions->action(Id::Redo)->setEnabled(active && m_curation->canRedo());
    m_actions->setUndoText(m_curation ? m_curation->undoText() : QString());
    m_actions->setRedoText(m_curation ? m_curation->redoText() : QString());
}

void DatasetPage::updateCounts() {
    m_countsTimer.stop();
    if (!m_clipModel) {
        m_countLabel->clear();
        return;
    }
    const int total = m_clipModel->rowCount();
    const int shown = m_filterModel->rowCount();
    const int selected = static_cast<int>(selectedClipIds().size());
    QString text = shown == total ? (total == 1 ? tr("1 clip") : tr("%1 clips").arg(total))
                                  : tr("%1 of %2 clips shown").arg(shown).arg(total);
    if (selected > 0)
        text += QStringLiteral(" · ") + tr("%1 selected").arg(selected);
    m_countLabel->setText(text);
    updateEmptyState();
    updateActions();
}

void DatasetPage::updateFilterChoices() {
    if (!m_clipModel || !m_sessionProject)
        return;
    QMap<qint64, QSize> resolutions;
    QMap<QString, QString> buckets;
    for (int row = 0; row < m_clipModel->rowCount(); ++row) {
        const ClipRecord& clip = m_clipModel->record(row);
        if (clip.width > 0 && clip.height > 0)
            resolutions.insert(static_cast<qint64>(clip.width) << 32 | clip.height,
                               QSize(clip.width, clip.height));
        const BucketPreview::Placement& placement = m_clipModel->placement(row);
        if (placement.placed())
            buckets.insert(BucketPreview::bucketKey(placement),
                           BucketPreview::bucketText(placement.assignment.frames,
                                                     placement.assignment.height,
                                                     placement.assignment.width));
    }
    QList<QPair<QString, QString>> bucketChoices;
    for (auto it = buckets.constBegin(); it != buckets.constEnd(); ++it)
        bucketChoices.append({it.key(), it.value()});
    const QStringList tags = ClipStore(*m_sessionProject).allTags();
    m_filterBar->setChoices(tags, resolutions.values(), bucketChoices);
    m_inspector->setTagSuggestions(tags);
}

void DatasetPage::onSelectionChanged() {
    m_inspector->showClips(selectedClipIds());
    updateCounts();
    QTimer::singleShot(0, this, &DatasetPage::fitInspector);
}

void DatasetPage::onImportFinished(const ImportReport& report) {
    if (report.changedClipIds.size() > kIncrementalRefreshLimit || m_clipModel->rowCount() == 0)
        reloadKeepingSelection();
    else
        m_clipModel->refreshClips(report.changedClipIds);
    updateEmptyState();
    m_choicesTimer.start();
    updateActions();
    emit statusMessage(report.summary());
    emit importFinished(report);
}

void DatasetPage::onSortChosen() {
    const int column = m_sortBox->currentData().toInt();
    const Qt::SortOrder order =
        m_sortOrderButton->isChecked() ? Qt::DescendingOrder : Qt::AscendingOrder;
    m_tableView->sortByColumn(column, order);
}

void DatasetPage::onSortIndicatorChanged(int column, Qt::SortOrder order) {
    const QSignalBlocker boxBlocker(m_sortBox);
    const QSignalBlocker orderBlocker(m_sortOrderButton);
    const int index = m_sortBox->findData(column);
    if (index >= 0)
        m_sortBox->setCurrentIndex(index);
    m_sortOrderButton->setChecked(order == Qt::DescendingOrder);
    m_sortOrderButton->setArrowType(order == Qt::DescendingOrder ? Qt::DownArrow : Qt::UpArrow);
}

void DatasetPage::setStatus(int status) {
    const QVector<qint64> ids = selectedClipIds();
    if (m_curation && !ids.isEmpty())
        m_curation->setStatus(ids, static_cast<ClipStatus>(status));
    else
        updateActions(); // the action toggled its own check mark; put it back
}

void DatasetPage::removeSelectedClips() {
    const QVector<qint64> ids = selectedClipIds();
    if (!m_curation || ids.isEmpty())
        return;
    m_inspector->commitPendingEdits();
    QMessageBox box(QMessageBox::Question, tr("Remove Clips"),
                    ids.size() == 1 ? tr("Remove this clip from the project?")
                                    : tr("Remove these %1 clips from the project?").arg(ids.size()),
                    QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("removeClipsBox"));
    box.setInformativeText(
        tr("The video files stay where they are. Edit ▸ Undo puts the clips back with their "
           "captions, ratings and tags; the history of their earlier caption edits is not kept."));
    QPushButton* remove = box.addButton(tr("Remove"), QMessageBox::DestructiveRole);
    remove->setObjectName(QStringLiteral("confirmRemoveClipsButton"));
    box.setDefaultButton(QMessageBox::Cancel);
    box.exec();
    if (box.clickedButton() != remove)
        return;
    if (m_curation->removeClips(ids))
        emit statusMessage(ids.size() == 1
                               ? tr("Removed 1 clip from the project.")
                               : tr("Removed %1 clips from the project.").arg(ids.size()));
}

void DatasetPage::setRating(int rating) {
    const QVector<qint64> ids = selectedClipIds();
    if (m_curation && !ids.isEmpty())
        m_curation->setRating(ids, rating);
}

void DatasetPage::undo() {
    if (!m_curation)
        return;
    m_inspector->commitPendingEdits();
    if (m_curation->canUndo())
        m_curation->undo();
}

void DatasetPage::redo() {
    if (!m_curation)
        return;
    m_inspector->commitPendingEdits();
    if (m_curation->canRedo())
        m_curation->redo();
}

QVector<ClipRecord> DatasetPage::selectedRecords() const {
    QVector<ClipRecord> records;
    if (!m_clipModel)
        return records;
    for (const qint64 id : selectedClipIds()) {
        const int row = m_clipModel->rowOfClip(id);
        if (row >= 0)
            records.append(m_clipModel->record(row));
    }
    return records;
}

QVector<ClipRecord> DatasetPage::shownRecords() const {
    QVector<ClipRecord> records;
    if (!m_clipModel)
        return records;
    for (int row = 0; row < m_filterModel->rowCount(); ++row) {
        const QModelIndex source = m_filterModel->mapToSource(m_filterModel->index(row, 0));
        records.append(m_clipModel->record(source.row()));
    }
    return records;
}

QVector<ClipRecord> DatasetPage::bulkRecords() const {
    const QVector<ClipRecord> selected = selectedRecords();
    return selected.isEmpty() ? shownRecords() : selected;
}

QStringList DatasetPage::localPaths(const QMimeData* mimeData) {
    QStringList paths;
    if (!mimeData || !mimeData->hasUrls())
        return paths;
    for (const QUrl& url : mimeData->urls()) {
        if (url.isLocalFile())
            paths.append(url.toLocalFile());
    }
    return paths;
}

void DatasetPage::dragEnterEvent(QDragEnterEvent* event) {
    if (m_sessionProject && !isReadOnly() && !isImporting() &&
        !localPaths(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();
}

void DatasetPage::dragMoveEvent(QDragMoveEvent* event) {
    if (m_sessionProject && !isReadOnly() && !isImporting() &&
        !localPaths(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();
}

void DatasetPage::dropEvent(QDropEvent* event) {
    const QStringList paths = localPaths(event->mimeData());
    if (paths.isEmpty() || !importPaths(paths)) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
}

void DatasetPage::showEvent(QShowEvent* event) {
    StudioPage::showEvent(event);
    m_pageShown = true;
    updateActions();
}

void DatasetPage::hideEvent(QHideEvent* event) {
    StudioPage::hideEvent(event);
    m_pageShown = false;
    updateActions();
}

void DatasetPage::showError(const QString& objectName, const QString& title, const QString& text) {
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setObjectName(objectName);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void DatasetPage::retranslateUi() {
    StudioPage::retranslateUi();
    setHeader(tr("Dataset"), tr("The clips and captions you train on"));
    if (m_preparingTitle.isEmpty()) {
        m_projectEmptyState->setTitle(tr("No clips in this project yet"));
        m_projectEmptyState->setBody(
            tr("Import a folder of video clips to start your dataset. Each clip then gets a "
               "caption, and the clips you accept become the training set. You can also drop "
               "files and folders here; a .txt file next to a clip is read as its caption."));
    } else {
        m_projectEmptyState->setTitle(m_preparingTitle);
        m_projectEmptyState->setBody(m_preparingBody);
    }
    m_emptyImportButton->setVisible(m_preparingTitle.isEmpty());
    m_emptyImportButton->setText(tr("Import Folder…"));
    m_actions->retranslateUi();
    m_editMenuButton->setText(tr("Edit Captions"));
    m_sortLabel->setText(tr("S&ort:"));
    const QStringList sortNames{tr("Name"),     tr("Status"), tr("Rating"), tr("Resolution"),
                                tr("Duration"), tr("Frames"), tr("Bucket"), tr("Caption")};
    for (int index = 0; index < m_sortBox->count(); ++index)
        m_sortBox->setItemText(index, sortNames.value(index));
    m_sortOrderButton->setToolTip(tr("Reverse the order"));
    updateCounts();
}
