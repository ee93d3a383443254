#pragma once

#include "app/runs/RunMemoryTable.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableWidget;

// The per-phase memory table of one run or several (a sweep), with copy as Markdown and save as
// CSV, the two forms people paste into READMEs and spreadsheets.
class MemoryTableWidget : public QWidget {
    Q_OBJECT

public:
    explicit MemoryTableWidget(QWidget* parent = nullptr);

    void setTable(const RunMemoryTable& table);
    const RunMemoryTable& table() const { return m_table; }
    QTableWidget* view() const { return m_view; }
    // Writes the CSV atomically; false with error set when it cannot.
    bool saveCsv(const QString& file, QString* error) const;

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void rebuild();

    RunMemoryTable m_table;
    QLabel* m_title;
    QTableWidget* m_view;
    QPushButton* m_copyButton;
    QPushButton* m_saveButton;
};
