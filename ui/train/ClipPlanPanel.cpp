#include "ui/train/ClipPlanPanel.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

ClipPlanPanel::ClipPlanPanel(const QString& objectName, QWidget* parent)
    : QWidget(parent)
    , m_detailsButton(new QToolButton(this))
    , m_summaryLabel(new QLabel(this))
    , m_list(new QTreeWidget(this))
    , m_showButton(new QPushButton(this)) {
    setObjectName(objectName);
    m_detailsButton->setObjectName(objectName + QStringLiteral("DetailsButton"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setArrowType(Qt::RightArrow);
    m_detailsButton->setAutoRaise(true);
    m_summaryLabel->setObjectName(objectName + QStringLiteral("Summary"));
    m_summaryLabel->setWordWrap(true);
    m_list->setObjectName(objectName + QStringLiteral("List"));
    m_list->setColumnCount(2);
    m_list->setRootIsDecorated(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->header()->setStretchLastSection(true);
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->hide();
    m_showButton->setObjectName(objectName + QStringLiteral("ShowButton"));
    m_showButton->hide();
    connect(m_detailsButton, &QToolButton::toggled, this, [this](bool shown) {
        m_list->setVisible(shown);
        m_showButton->setVisible(shown);
        m_detailsButton->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    });
    connect(m_showButton, &QPushButton::clicked, this,
            [this] { emit showClipsRequested(chosenPaths()); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        emit showClipsRequested({item->data(0, Qt::UserRole).toString()});
    });

    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* titleRow = new QHBoxLayout;
    titleRow->setSpacing(2);
    titleRow->addWidget(m_detailsButton, 0, Qt::AlignTop);
    titleRow->addWidget(m_summaryLabel, 1);
    auto* showRow = new QHBoxLayout;
    showRow->addStretch(1);
    showRow->addWidget(m_showButton);
    auto* inner = new QVBoxLayout(frame);
    inner->setContentsMargins(4, 2, 6, 2);
    inner->setSpacing(2);
    inner->addLayout(titleRow);
    inner->addWidget(m_list);
    inner->addLayout(showRow);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(frame);
    retranslateUi();
    updateVisibility();
}

void ClipPlanPanel::setPlan(const TrainingClipPlan& plan) {
    m_plan = plan;
    retranslateUi();
    updateVisibility();
}

void ClipPlanPanel::setAlwaysShown(bool shown) {
    m_alwaysShown = shown;
    updateVisibility();
}

QString ClipPlanPanel::summaryText() const {
    return m_summaryLabel->text();
}

void ClipPlanPanel::updateVisibility() {
    const bool notes = !m_plan.notes().isEmpty();
    setVisible(notes || (m_alwaysShown && !m_plan.clips().isEmpty()));
    m_detailsButton->setVisible(notes);
    if (!notes)
        m_detailsButton->setChecked(false);
}

QStringList ClipPlanPanel::chosenPaths() const {
    QList<QTreeWidgetItem*> items = m_list->selectedItems();
    if (items.isEmpty()) {
        for (int row = 0; row < m_list->topLevelItemCount(); ++row)
            items.append(m_list->topLevelItem(row));
    }
    QStringList paths;
    for (const QTreeWidgetItem* item : items)
        paths.append(item->data(0, Qt::UserRole).toString());
    return paths;
}

void ClipPlanPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void ClipPlanPanel::retranslateUi() {
    m_summaryLabel->setText(m_plan.summary());
    m_detailsButton->setToolTip(tr("Shows each clip that is reshaped, left out or not reviewed."));
    m_list->setHeaderLabels({tr("Clip"), tr("What happens")});
    m_showButton->setText(tr("Show in Dataset"));
    m_showButton->setToolTip(tr("Selects these clips on the Dataset page (the selected rows "
                                "only, when some are selected)."));
    m_list->clear();
    const QVector<TrainingClipPlan::Clip> notes = m_plan.notes();
    for (const TrainingClipPlan::Clip& clip : notes) {
        auto* item = new QTreeWidgetItem(m_list);
        item->setText(0, QFileInfo(clip.path).fileName());
        item->setToolTip(0, QDir::toNativeSeparators(clip.path));
        item->setData(0, Qt::UserRole, clip.path);
        QString what = TrainingClipPlan::fateText(clip.fate);
        if (!clip.detail.isEmpty())
            what = tr("%1: %2").arg(what, clip.detail);
        if (!clip.reviewed && clip.fate != TrainingClipPlan::Fate::LeftOut)
            what = tr("%1 (not reviewed yet)").arg(what);
        item->setText(1, what);
        item->setToolTip(1, what);
    }
    m_list->resizeColumnToContents(0);
    // As tall as its rows, up to four; more scroll.
    const int rows = std::max(1, std::min(static_cast<int>(notes.size()), 4));
    const int rowHeight = std::max(m_list->sizeHintForRow(0), fontMetrics().height() + 4);
    m_list->setFixedHeight(m_list->header()->sizeHint().height() + rows * rowHeight +
                           2 * m_list->frameWidth());
}
