#include "ui/import/ImportReportDialog.h"

#include <QApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

ImportReportDialog::ImportReportDialog(const ImportReport& report,
                                       const QVector<ClipRecord>& flagged, QWidget* parent)
    : QDialog(parent)
    , m_report(report)
    , m_flagged(flagged)
    , m_summaryLabel(new QLabel(this))
    , m_list(new QListWidget(this))
    , m_showFlaggedButton(new QPushButton(this))
    , m_closeButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("importReportDialog"));
    m_summaryLabel->setObjectName(QStringLiteral("importReportSummary"));
    m_summaryLabel->setWordWrap(true);
    m_list->setObjectName(QStringLiteral("importReportList"));
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    m_showFlaggedButton->setObjectName(QStringLiteral("importShowFlaggedButton"));
    m_showFlaggedButton->setVisible(!flagged.isEmpty());
    m_closeButton->setObjectName(QStringLiteral("importReportCloseButton"));
    m_closeButton->setDefault(true);

    auto* buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_showFlaggedButton);
    buttons->addWidget(m_closeButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summaryLabel);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);

    connect(m_closeButton, &QPushButton::clicked, this, &QDialog::accept);
    connect(m_showFlaggedButton, &QPushButton::clicked, this, [this] {
        emit showFlaggedRequested();
        accept();
    });
    resize(640, 400);
    retranslateUi();
}

int ImportReportDialog::entryCount() const {
    return m_list->count();
}

void ImportReportDialog::fillList() {
    m_list->clear();
    const QIcon errorIcon = style()->standardIcon(QStyle::SP_MessageBoxCritical);
    const QIcon warningIcon = style()->standardIcon(QStyle::SP_MessageBoxWarning);
    const QIcon infoIcon = style()->standardIcon(QStyle::SP_MessageBoxInformation);
    for (const QString& error : m_report.errors)
        new QListWidgetItem(errorIcon, error, m_list);
    for (const ClipRecord& clip : m_flagged) {
        auto* item = new QListWidgetItem(warningIcon,
                                         ClipRecord::problemText(clip.problem, clip.path), m_list);
        item->setToolTip(clip.problemDetail);
    }
    for (const QString& note : m_report.notes)
        new QListWidgetItem(infoIcon, note, m_list);
    if (m_list->count() == 0)
        new QListWidgetItem(infoIcon, tr("Every file was imported without a problem."), m_list);
}

void ImportReportDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void ImportReportDialog::retranslateUi() {
    setWindowTitle(tr("Import Report"));
    m_summaryLabel->setText(m_report.summary());
    m_showFlaggedButton->setText(m_flagged.size() == 1
                                     ? tr("Show the Flagged Clip")
                                     : tr("Show the %1 Flagged Clips").arg(m_flagged.size()));
    m_closeButton->setText(tr("Close"));
    fillList();
}
