#include "ui/train/SweepDialog.h"

#include "ui/train/FormFields.h"

#include "app/runs/TrainingRuns.h"
#include "common/sweep_grid.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace {

constexpr int kPreviewDelayMs = 200;
constexpr int kPreviewLabels = 12;

// The job fields the dialog sweeps; whether each takes whole numbers, and its choices, come
// from the job's table of limits.
const char* const kFieldPaths[] = {"optimizer.lr",
                                   "lr_schedule.name",
                                   "optimizer.name",
                                   "lora.rank",
                                   "lora.alpha",
                                   "max_steps",
                                   "batch_size",
                                   "gradient_accumulation",
                                   "lr_schedule.warmup_steps",
                                   "optimizer.weight_decay",
                                   "dataset.caption_dropout",
                                   "max_grad_norm",
                                   "seed",
                                   "precision"};

QJsonValue valueAt(const QJsonObject& job, const QString& path) {
    QJsonValue value = job;
    for (const QString& key : path.split(QLatin1Char('.')))
        value = value.toObject().value(key);
    return value;
}

} // namespace

SweepDialog::SweepDialog(const QJsonObject& job, QWidget* parent)
    : QDialog(parent)
    , m_job(job)
    , m_nameEdit(new QLineEdit(this))
    , m_nameLabel(new QLabel(this))
    , m_intro(new QLabel(this))
    , m_preview(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
    , m_updateTimer(new QTimer(this)) {
    setObjectName(QStringLiteral("sweepDialog"));
    m_nameEdit->setObjectName(QStringLiteral("sweepNameEdit"));
    m_nameEdit->setText(QStringLiteral("sweep"));
    // The grid's limit is in UTF-8 bytes; a character takes at most 4 (the reader says so).
    m_nameEdit->setMaxLength(int(tuneframe::common::kMaxSweepNameBytes));
    m_intro->setWordWrap(true);
    m_preview->setObjectName(QStringLiteral("sweepPreview"));
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* form = new QFormLayout;
    form->addRow(m_nameLabel, m_nameEdit);
    // A full fine-tune has no adapter: its runs would differ in nothing but their names.
    const bool full = job.value(QStringLiteral("mode")).toString() == QLatin1String("full");
    for (const char* path : kFieldPaths) {
        if (full && QLatin1String(path).startsWith(QLatin1String("lora.")))
            continue;
        const bool integer = tuneframe::common::job_field_limit(path).type ==
                             tuneframe::common::JobFieldType::Integer;
        Field field{QString::fromLatin1(path), integer, FormFields::jobChoices(path)};
        field.edit = new QLineEdit(this);
        field.edit->setObjectName(QStringLiteral("sweep:") + field.path);
        field.label = new QLabel(this);
        form->addRow(field.label, field.edit);
        connect(field.edit, &QLineEdit::textChanged, m_updateTimer,
                static_cast<void (QTimer::*)()>(&QTimer::start));
        m_fields.append(field);
    }
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(form);
    layout->addWidget(m_preview);
    layout->addWidget(m_buttons);
    m_updateTimer->setSingleShot(true);
    m_updateTimer->setInterval(kPreviewDelayMs);
    connect(m_updateTimer, &QTimer::timeout, this, &SweepDialog::update);
    connect(m_nameEdit, &QLineEdit::textChanged, m_updateTimer,
            static_cast<void (QTimer::*)()>(&QTimer::start));
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        update();
        if (!m_problem.isEmpty())
            return;
        emit sweepAccepted(grid());
        accept();
    });
    retranslateUi();
}

bool SweepDialog::setValues(const QString& field, const QString& values) {
    for (Field& candidate : m_fields) {
        if (candidate.path == field) {
            candidate.edit->setText(values);
            update();
            return true;
        }
    }
    return false;
}

void SweepDialog::setSweepName(const QString& name) {
    m_nameEdit->setText(name);
    update();
}

QJsonArray SweepDialog::valuesOf(const Field& field, QString* error) const {
    QJsonArray values;
    for (const QString& part : field.edit->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const QString text = part.trimmed();
        if (text.isEmpty())
            continue;
        if (!field.names.isEmpty()) {
            if (!field.names.contains(text)) {
                *error = tr("“%1” is not a choice for %2; write one of %3.")
                             .arg(text, field.path, field.names.join(QStringLiteral(", ")));
                return {};
            }
            values.append(text);
            continue;
        }
        bool ok = false;
        const double number = QLocale::c().toDouble(text, &ok);
        if (!ok || (field.integer && number != std::floor(number))) {
            *error = field.integer
                         ? tr("“%1” is not a whole number for %2.").arg(text, field.path)
                         : tr("“%1” is not a number for %2; write it like 1e-4 or 0.0001.")
                               .arg(text, field.path);
            return {};
        }
        // Checked before the conversion: 1e30 steps is out of range, not a wrapped number.
        const tuneframe::common::JobFieldLimit& limit =
            tuneframe::common::job_field_limit(field.path.toStdString());
        if (field.integer &&
            (number < double(limit.min_integer) || number > double(limit.max_integer))) {
            *error = tr("%1 is outside %2 to %3 for %4.")
                         .arg(text)
                         .arg(limit.min_integer)
                         .arg(limit.max_integer)
                         .arg(field.path);
            return {};
        }
        values.append(field.integer ? QJsonValue(static_cast<qint64>(number)) : QJsonValue(number));
    }
    return values;
}

QJsonObject SweepDialog::grid() const {
    QJsonObject axes;
    QString ignored;
    for (const Field& field : m_fields) {
        const QJsonArray values = valuesOf(field, &ignored);
        if (!values.isEmpty())
            axes.insert(field.path, values);
    }
    const QString name = m_nameEdit->text().trimmed();
    return {{QStringLiteral("name"), name.isEmpty() ? QStringLiteral("sweep") : name},
            {QStringLiteral("axes"), axes}};
}

QStringList SweepDialog::combinationLabels() const {
    return m_labels;
}

QString SweepDialog::problem() const {
    return m_problem;
}

void SweepDialog::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
    QDialog::changeEvent(event);
}

void SweepDialog::retranslateUi() {
    setWindowTitle(tr("Sweep"));
    m_intro->setText(tr("Each field takes a comma-separated list of values; every combination "
                        "becomes a run in the queue, named after its values. The runs share "
                        "one prepared cache."));
    m_nameLabel->setText(tr("Sweep name"));
    for (Field& field : m_fields) {
        field.label->setText(field.path);
        const QJsonValue current = valueAt(m_job, field.path);
        const QString now = current.isString()   ? current.toString()
                            : current.isDouble() ? QString::number(current.toDouble(), 'g', 6)
                                                 : QString();
        field.edit->setPlaceholderText(
            field.names.isEmpty()
                ? tr("now %1").arg(now)
                : tr("now %1; choices: %2").arg(now, field.names.join(QStringLiteral(", "))));
    }
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Queue Sweep"));
    update();
}

void SweepDialog::update() {
    m_problem.clear();
    m_labels.clear();
    for (const Field& field : m_fields) {
        valuesOf(field, &m_problem);
        if (!m_problem.isEmpty())
            break;
    }
    if (m_problem.isEmpty()) {
        const QJsonObject sweep = grid();
        if (sweep.value(QStringLiteral("axes")).toObject().isEmpty())
            m_problem = tr("Give values for at least one field.");
        else
            m_labels = TrainingRuns::sweepLabels(m_job, sweep, &m_problem);
    }
    if (!m_problem.isEmpty()) {
        m_preview->setText(m_problem);
    } else {
        QStringList shown = m_labels.mid(0, kPreviewLabels);
        if (m_labels.size() > kPreviewLabels)
            shown.append(tr("… and %1 more").arg(m_labels.size() - kPreviewLabels));
        m_preview->setText(tr("%n run(s): %1", nullptr, static_cast<int>(m_labels.size()))
                               .arg(shown.join(QStringLiteral("; "))));
    }
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_problem.isEmpty());
}
