#include "ui/runs/MemoryTableWidget.h"

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSaveFile>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>

MemoryTableWidget::MemoryTableWidget(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_view(new QTableWidget(this))
    , m_copyButton(new QPushButton(this))
    , m_saveButton(new QPushButton(this)) {
    setObjectName(QStringLiteral("memoryTableWidget"));
    m_view->setObjectName(QStringLiteral("memoryTable"));
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_copyButton->setObjectName(QStringLiteral("copyMemoryMarkdownButton"));
    m_saveButton->setObjectName(QStringLiteral("saveMemoryCsvButton"));
    // The title wraps rather than hold the plots' column open on a laptop.
    m_title->setWordWrap(true);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_title, 1);
    buttons->addWidget(m_copyButton);
    buttons->addWidget(m_saveButton);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_view, 1);
    connect(m_copyButton, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_table.markdown()); });
    connect(m_saveButton, &QPushButton::clicked, this, [this] {
        auto* dialog = new QFileDialog(this, tr("Save the Memory Table as CSV"),
                                       QStringLiteral("memory.csv"), tr("CSV files (*.csv)"));
        dialog->setAcceptMode(QFileDialog::AcceptSave);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &QFileDialog::fileSelected, this, [this](const QString& file) {
            QString error;
            if (!saveCsv(file, &error))
                QToolTip::showText(m_saveButton->mapToGlobal(QPoint()), error, m_saveButton);
        });
        dialog->open();
    });
    retranslateUi();
}

void MemoryTableWidget::setTable(const RunMemoryTable& table) {
    m_table = table;
    rebuild();
}

bool MemoryTableWidget::saveCsv(const QString& file, QString* error) const {
    QSaveFile out(file);
    const QByteArray bytes = m_table.csv().toUtf8();
    if (out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size() && out.commit())
        return true;
    if (error)
        *error = tr("%1 could not be written: %2")
                     .arg(QDir::toNativeSeparators(file), out.errorString());
    return false;
}

void MemoryTableWidget::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void MemoryTableWidget::retranslateUi() {
    m_title->setText(tr("Peak memory by phase (GiB; on the CPU, the resident set)"));
    m_copyButton->setText(tr("Copy as Markdown"));
    m_saveButton->setText(tr("Save CSV…"));
    rebuild();
}

void MemoryTableWidget::rebuild() {
    QStringList header{tr("Run"), tr("Rank")};
    for (const QString& phase : RunMemoryTable::kPhases)
        header.append(RunMemoryTable::phaseTitle(phase));
    m_view->clear();
    m_view->setColumnCount(static_cast<int>(header.size()));
    m_view->setHorizontalHeaderLabels(header);
    m_view->setRowCount(static_cast<int>(m_table.rows().size()));
    for (int row = 0; row < m_table.rows().size(); ++row) {
        const RunMemoryTable::Row& line = m_table.rows().at(row);
        QStringList cells{line.run, QString::number(line.rank)};
        for (const std::optional<qint64>& bytes : line.peakBytes)
            cells.append(RunMemoryTable::cellText(bytes));
        for (int column = 0; column < cells.size(); ++column) {
            auto* item = new QTableWidgetItem(cells.at(column));
            if (column > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_view->setItem(row, column, item);
        }
    }
    m_copyButton->setEnabled(!m_table.isEmpty());
    m_saveButton->setEnabled(!m_table.isEmpty());
}
