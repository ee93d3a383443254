#pragma once

#include <QTableView>

// The clips as a table over ClipFilterModel: every column of ClipTableModel, sortable by
// clicking a header (the sort is the filter model's, so the grid follows), whole rows
// selected. Status, rating and caption can be edited in place with F2 or a double click.
class ClipTableView : public QTableView {
    Q_OBJECT

public:
    explicit ClipTableView(QWidget* parent = nullptr);

    void setModel(QAbstractItemModel* model) override;

private:
    void applyColumnLayout();
};
