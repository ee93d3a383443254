#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QSpinBox;

// The new-run form's "Machines" row: how many machines train the run, each with the processes
// chosen above, and where the others meet this one (machine 0): its address and a port.
class MachinesFields : public QWidget {
    Q_OBJECT

public:
    explicit MachinesFields(QWidget* parent = nullptr);

    int count() const;
    QString address() const;
    int port() const;
    // Why the row cannot make a plan (no address, or one the other machines cannot reach), or
    // "" when it can.
    QString inputError() const;

signals:
    void edited();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslateUi();
    void updateVisibility();

    QSpinBox* m_countSpin;
    QLabel* m_atLabel;
    QLineEdit* m_addressEdit;
    QLabel* m_colonLabel;
    QSpinBox* m_portSpin;
};
