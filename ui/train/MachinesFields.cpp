#include "ui/train/MachinesFields.h"

#include "app/engine/LaunchPlan.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

namespace {

// torchrun's default rendezvous port, which cluster firewalls are often opened for.
constexpr int kDefaultPort = 29500;
constexpr int kMostMachines = 256;

bool loopback(const QString& address) {
    return address == QLatin1String("localhost") || address == QLatin1String("::1") ||
           address.startsWith(QLatin1String("127."));
}

} // namespace

MachinesFields::MachinesFields(QWidget* parent)
    : QWidget(parent)
    , m_countSpin(new QSpinBox(this))
    , m_atLabel(new QLabel(this))
    , m_addressEdit(new QLineEdit(LaunchPlan::thisMachineAddress(), this))
    , m_colonLabel(new QLabel(QStringLiteral(":"), this))
    , m_portSpin(new QSpinBox(this)) {
    m_countSpin->setObjectName(QStringLiteral("machinesSpin"));
    m_countSpin->setRange(1, kMostMachines);
    m_addressEdit->setObjectName(QStringLiteral("masterAddressEdit"));
    m_portSpin->setObjectName(QStringLiteral("masterPortSpin"));
    m_portSpin->setRange(1024, 65535);
    m_portSpin->setValue(kDefaultPort);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_countSpin);
    layout->addWidget(m_atLabel);
    layout->addWidget(m_addressEdit, 1);
    layout->addWidget(m_colonLabel);
    layout->addWidget(m_portSpin);
    connect(m_countSpin, &QSpinBox::valueChanged, this, [this] {
        updateVisibility();
        emit edited();
    });
    connect(m_addressEdit, &QLineEdit::textChanged, this, &MachinesFields::edited);
    connect(m_portSpin, &QSpinBox::valueChanged, this, &MachinesFields::edited);
    retranslateUi();
    updateVisibility();
}

int MachinesFields::count() const {
    return m_countSpin->value();
}

QString MachinesFields::address() const {
    return m_addressEdit->text().trimmed();
}

int MachinesFields::port() const {
    return m_portSpin->value();
}

QString MachinesFields::inputError() const {
    if (count() < 2)
        return {};
    if (address().isEmpty())
        return tr("Give this machine's address, which the other machines reach it at (for "
                  "example 192.168.1.10).");
    if (loopback(address()))
        return tr("%1 is this machine's own loopback address, which the other machines cannot "
                  "reach. Give its address on the network they share.")
            .arg(address());
    return {};
}

void MachinesFields::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QWidget::changeEvent(event);
}

void MachinesFields::retranslateUi() {
    m_atLabel->setText(tr("meeting at"));
    m_countSpin->setToolTip(
        tr("Machines that train this run together, each with the processes chosen above. This "
           "one is machine 0: it prepares the dataset and the others meet it. The run folder must "
           "be at the same path on every machine (a shared file system); after Train the studio "
           "shows the command to start on each other machine."));
    m_addressEdit->setToolTip(tr("This machine's address on the network the machines share."));
    m_addressEdit->setPlaceholderText(tr("this machine's address"));
    m_portSpin->setToolTip(tr("A free port on this machine that the other machines may reach."));
}

void MachinesFields::updateVisibility() {
    const bool several = count() > 1;
    for (QWidget* part : {static_cast<QWidget*>(m_atLabel), static_cast<QWidget*>(m_addressEdit),
                          static_cast<QWidget*>(m_colonLabel), static_cast<QWidget*>(m_portSpin)})
        part->setVisible(several);
}
