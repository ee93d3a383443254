#include "ui/SkippedClipsPanel.h"

#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QFrame>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

SkippedClipsPanel::SkippedClipsPanel(QWidget* parent)
    : QWidget(parent)
    , m_titleLabel(new QLabel(this))
    , m_explanationLabel(new QLabel(this))
    , m_list(new QTreeWidget(this))
    , m_showButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("skippedClipsPanel"));
    m_titleLabel->setObjectName(QStringLiteral("skippedClipsTitle"));
    QFont titleFont = m_titleLabel->font();
    titleFont.setBold(true);
    m_titleLabel->setFont(titleFont);
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

    auto* frame = new QFrame(this);
    frame->setFrameShape(QFrame::StyledPanel);
    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_showButton);
    auto* inner = new QVBoxLayout(frame);
    inner->addWidget(m_titleLabel);
    inner->addWidget(m_explanationLabel);
    inner->addWidget(m_list);
    inner->addLayout(buttons);
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
    m_titleLabel->setText(tr("Clips left out of this run: %1").arg(count));
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
