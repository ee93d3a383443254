#include "ui/dataset/SkippedClipsPanel.h"

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

SkippedClipsPanel::SkippedClipsPanel(QWidget* parent)
    : QWidget(parent)
    , m_explanationLabel(new QLabel(this))
    , m_list(new QTreeWidget(this))
    , m_detailsButton(new QToolButton(this))
    , m_showButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("skippedClipsPanel"));
    m_explanationLabel->setObjectName(QStringLiteral("skippedClipsExplanation"));
    m_explanationLabel->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("skippedClipsList"));
    m_list->setColumnCount(2);
    m_list->setRootIsDecorated(false);
    m_list->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_list->header()->setStretchLastSection(true);
    m_showButton->setObjectName(QStringLiteral("showSkippedClipsButton"));
    connect(m_showButton, &QPushButton::clicked, this,
            [this] { emit showClipsRequested(chosenPaths()); });
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
        emit showClipsRequested({item->data(0, Qt::UserRole).toString()});
    });

    // One line until asked for the list: the plots below need the height more.
    m_detailsButton->setObjectName(QStringLiteral("skippedClipsDetailsButton"));
    m_detailsButton->setCheckable(true);
    m_detailsButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detailsButton->setArrowType(Qt::RightArrow);
    m_detailsButton->setAutoRaise(true);
    QFont titleFont = m_detailsButton->font();
    titleFont.setBold(true);
    m_detailsButton->setFont(titleFont);
    m_detailsButton->setToolTip(tr("Shows each clip and why it was left out."));
    m_explanationLabel->hide();
    m_list->hide();
    connect(m_detailsButton, &QToolButton::toggled, this, [this](bool shown) {
        m_explanationLabel->setVisible(shown);
        m_list->setVisible(shown);
        m_detailsButton->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    });

    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* titleRow = new QHBoxLayout;
    titleRow->addWidget(m_detailsButton);
    titleRow->addStretch(1);
    titleRow->addWidget(m_showButton);
    auto* inner = new QVBoxLayout(frame);
    inner->setContentsMargins(6, 4, 6, 4);
    inner->addLayout(titleRow);
    inner->addWidget(m_explanationLabel);
    inner->addWidget(m_list);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(frame);
    retranslateUi();
    hide();
}

void SkippedClipsPanel::setClips(const QVector<PreparedSkips::Clip>& clips) {
    m_clips = clips;
    retranslateUi();
    setVisible(!m_clips.isEmpty());
}

QStringList SkippedClipsPanel::chosenPaths() const {
    QList<QTreeWidgetItem*> items = m_list->selectedItems();
    if (items.isEmpty()) {
        for (int row = 0; row < m_list->topLevelItemCount(); ++row)
            items.append(m_list->topLevelItem(row));
    }
    QStringList paths;
    for (const QTreeWidgetItem* item : items) {
        const QString path = item->data(0, Qt::UserRole).toString();
        if (!path.isEmpty())
            paths.append(path);
    }
    return paths;
}

void SkippedClipsPanel::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void SkippedClipsPanel::retranslateUi() {
    const auto count = static_cast<int>(m_clips.size());
    m_detailsButton->setText(tr("Clips left out of this run: %1").arg(count));
    const bool anyTooShort =
        std::any_of(m_clips.cbegin(), m_clips.cend(), [](const PreparedSkips::Clip& clip) {
            return clip.reason == QLatin1String("too_short");
        });
    QString explanation = tr("Preparing the run did not use them; the run trains on the other "
                             "clips. Fix or remove them on the Dataset page.");
    if (anyTooShort)
        explanation += QLatin1Char(' ') + tr("A preset that trains fewer frames keeps short "
                                             "clips.");
    m_explanationLabel->setText(explanation);
    m_list->setHeaderLabels({tr("Clip"), tr("Why")});
    m_showButton->setText(tr("Show in Dataset"));
    m_showButton->setToolTip(tr("Selects these clips on the Dataset page (the selected rows "
                                "only, when some are selected)."));

    m_list->clear();
    for (const PreparedSkips::Clip& clip : m_clips) {
        auto* item = new QTreeWidgetItem(m_list);
        item->setText(0, clip.path.isEmpty() ? tr("(a manifest line)")
                                             : QFileInfo(clip.path).fileName());
        item->setToolTip(0, QDir::toNativeSeparators(clip.path));
        item->setData(0, Qt::UserRole, clip.path);
        item->setText(1, PreparedSkips::reasonText(clip));
        item->setToolTip(1, clip.message);
    }
    m_list->resizeColumnToContents(0);
    // As tall as its rows, up to four; more scroll.
    const int rows = std::min(count, 4);
    const int rowHeight = std::max(m_list->sizeHintForRow(0), fontMetrics().height() + 4);
    m_list->setFixedHeight(m_list->header()->sizeHint().height() + rows * rowHeight +
                           2 * m_list->frameWidth());
}
