#include "app/import/FactoryCommandImport.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <functional>

namespace {

// Sets a value at a dotted path ("optimizer.lr") inside a job object.
void setPath(QJsonObject& job, const QString& path, const QJsonValue& value) {
    const qsizetype dot = path.indexOf(QLatin1Char('.'));
    if (dot < 0) {
        job.insert(path, value);
        return;
    }
    const QString head = path.left(dot);
    QJsonObject child = job.value(head).toObject();
    setPath(child, path.mid(dot + 1), value);
    job.insert(head, child);
}

QJsonArray integers(const QStringList& words, bool* ok) {
    QJsonArray values;
    *ok = !words.isEmpty();
    for (const QString& word : words) {
        bool converted = false;
        const int value = word.toInt(&converted);
        *ok = *ok && converted;
        values.append(value);
    }
    return values;
}

bool isFlag(const QString& word) {
    return word.startsWith(QLatin1String("--"));
}

} // namespace

QStringList FactoryCommandImport::shellWords(const QString& text, QString* error) {
    QStringList words;
    QString word;
    bool inWord = false;
    QChar quote;
    for (qsizetype index = 0; index < text.size(); ++index) {
        const QChar c = text.at(index);
        if (quote == QLatin1Char('\'')) {
            if (c == QLatin1Char('\''))
                quote = QChar();
            else
                word += c;
            continue;
        }
        if (c == QLatin1Char('\\') && index + 1 < text.size()) {
            const QChar next = text.at(++index);
            if (next == QLatin1Char('\n'))
                continue; // a line continuation
            if (quote == QLatin1Char('"') && !QStringLiteral("\"\\$`").contains(next))
                word += c;
            word += next;
            inWord = true;
            continue;
        }
        if (quote == QLatin1Char('"')) {
            if (c == QLatin1Char('"'))
                quote = QChar();
            else
                word += c;
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            quote = c;
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord)
                words.append(word);
            word.clear();
            inWord = false;
        } else {
            word += c;
            inWord = true;
        }
    }
    if (!quote.isNull() && error)
        *error = tr("A quote (%1) is not closed.").arg(quote);
    if (inWord)
        words.append(word);
    return words;
}

FactoryCommandImport::Result FactoryCommandImport::parse(const QString& commandLine) {
    Result result;
    QString error;
    QStringList words = shellWords(commandLine, &error);
    // `cmd="accelerate launch …"`: the command is the assignment's value.
    for (qsizetype index = 0; index < words.size(); ++index) {
        const QRegularExpressionMatch assignment =
            QRegularExpression(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*=(.*\\s.*)$"),
                               QRegularExpression::DotMatchesEverythingOption)
                .match(words.at(index));
        if (assignment.hasMatch()) {
            const QStringList inner = shellWords(assignment.captured(1), &error);
            words.remove(index);
            for (qsizetype offset = 0; offset < inner.size(); ++offset)
                words.insert(index + offset, inner.at(offset));
            break;
        }
    }
    qsizetype scriptIndex = -1;
    for (qsizetype index = 0; index < words.size(); ++index) {
        if (words.at(index).endsWith(QLatin1String(".py"))) {
            scriptIndex = index;
            break;
        }
    }
    if (scriptIndex < 0) {
        result.error = error.isEmpty()
                           ? tr("No training script (…/cogvideox_text_to_video_lora.py) was found "
                                "in the command. Paste the whole accelerate launch line.")
                           : error;
        return result;
    }
    result.script = words.at(scriptIndex);
    const QString script = result.script.section(QLatin1Char('/'), -1);
    setPath(result.job, QStringLiteral("task"),
            script.contains(QLatin1String("image_to_video")) ? QStringLiteral("i2v")
                                                             : QStringLiteral("t2v"));
    setPath(result.job, QStringLiteral("mode"),
            script.contains(QLatin1String("sft")) ? QStringLiteral("full")
                                                  : QStringLiteral("lora"));
    result.mapped.append(tr("%1 → task and mode").arg(script));

    // Flags with their values (none for store_true flags).
    struct Flag {
        QString name;
        QStringList values;
    };
    auto collect = [&words](qsizetype from, qsizetype to) {
        QVector<Flag> flags;
        for (qsizetype index = from; index < to; ++index) {
            const QString& word = words.at(index);
            if (!isFlag(word)) {
                if (!flags.isEmpty())
                    flags.last().values.append(word);
                continue;
            }
            Flag flag;
            const qsizetype equals = word.indexOf(QLatin1Char('='));
            flag.name = word.mid(2, equals < 0 ? -1 : equals - 2);
            if (equals >= 0)
                flag.values.append(word.mid(equals + 1));
            flags.append(flag);
        }
        return flags;
    };
    auto describe = [](const Flag& flag) {
        return (QStringLiteral("--") + flag.name + QLatin1Char(' ') +
                flag.values.join(QLatin1Char(' ')))
            .trimmed();
    };
    for (const Flag& flag : collect(0, scriptIndex)) {
        if (flag.name == QLatin1String("config_file"))
            continue; // accelerate's own configuration: Tuneframe chooses devices itself
        result.notUnderstood.append(
            tr("%1 (accelerate: choose the GPUs in Tuneframe instead)").arg(describe(flag)));
    }

    const QVector<Flag> flags = collect(scriptIndex + 1, words.size());
    QStringList heights;
    QStringList widths;
    QString separator = QStringLiteral(":::");
    QString prompts;
    QString images;
    OptimizerFlags optimizer;
    using Setter = std::function<bool(const QString&)>;
    auto number = [&result](const QString& path) -> Setter {
        return [&result, path](const QString& text) {
            bool ok = false;
            const double value = text.toDouble(&ok);
            if (ok)
                setPath(result.job, path, value);
            return ok;
        };
    };
    auto integer = [&result](const QString& path) -> Setter {
        return [&result, path](const QString& text) {
            bool ok = false;
            const qint64 value = text.toLongLong(&ok);
            if (ok)
                setPath(result.job, path, value);
            return ok;
        };
    };
    auto text = [&result](const QString& path) -> Setter {
        return [&result, path](const QString& value) {
            setPath(result.job, path, value);
            return true;
        };
    };
    const QHash<QString, QPair<QString, Setter>> simple = {
        {QStringLiteral("rank"),
         {QStringLiteral("lora.rank"), integer(QStringLiteral("lora.rank"))}},
        {QStringLiteral("lora_alpha"),
         {QStringLiteral("lora.alpha"), number(QStringLiteral("lora.alpha"))}},
        {QStringLiteral("seed"), {QStringLiteral("seed"), integer(QStringLiteral("seed"))}},
        {QStringLiteral("train_batch_size"),
         {QStringLiteral("batch_size"), integer(QStringLiteral("batch_size"))}},
        {QStringLiteral("max_train_steps"),
         {QStringLiteral("max_steps"), integer(QStringLiteral("max_steps"))}},
        {QStringLiteral("num_train_epochs"),
         {QStringLiteral("epochs"), integer(QStringLiteral("epochs"))}},
        {QStringLiteral("checkpointing_steps"),
         {QStringLiteral("checkpoints.every_steps"),
          integer(QStringLiteral("checkpoints.every_steps"))}},
        {QStringLiteral("checkpoints_total_limit"),
         {QStringLiteral("checkpoints.keep"), integer(QStringLiteral("checkpoints.keep"))}},
        {QStringLiteral("gradient_accumulation_steps"),
         {QStringLiteral("gradient_accumulation"),
          integer(QStringLiteral("gradient_accumulation"))}},
        {QStringLiteral("learning_rate"),
         {QStringLiteral("optimizer.lr"), number(QStringLiteral("optimizer.lr"))}},
        {QStringLiteral("lr_scheduler"),
         {QStringLiteral("lr_schedule.name"), text(QStringLiteral("lr_schedule.name"))}},
        {QStringLiteral("lr_warmup_steps"),
         {QStringLiteral("lr_schedule.warmup_steps"),
          integer(QStringLiteral("lr_schedule.warmup_steps"))}},
        {QStringLiteral("lr_num_cycles"),
         {QStringLiteral("lr_schedule.cycles"), integer(QStringLiteral("lr_schedule.cycles"))}},
        {QStringLiteral("lr_power"),
         {QStringLiteral("lr_schedule.power"), number(QStringLiteral("lr_schedule.power"))}},
        {QStringLiteral("beta1"),
         {QStringLiteral("optimizer.beta1"), number(QStringLiteral("optimizer.beta1"))}},
        {QStringLiteral("beta2"),
         {QStringLiteral("optimizer.beta2"), number(QStringLiteral("optimizer.beta2"))}},
        {QStringLiteral("beta3"),
         {QStringLiteral("optimizer.beta3"), number(QStringLiteral("optimizer.beta3"))}},
        {QStringLiteral("weight_decay"),
         {QStringLiteral("optimizer.weight_decay"),
          number(QStringLiteral("optimizer.weight_decay"))}},
        {QStringLiteral("epsilon"),
         {QStringLiteral("optimizer.eps"), number(QStringLiteral("optimizer.eps"))}},
        {QStringLiteral("max_grad_norm"),
         {QStringLiteral("max_grad_norm"), number(QStringLiteral("max_grad_norm"))}},
        {QStringLiteral("validation_steps"),
         {QStringLiteral("validation.every_steps"),
          integer(QStringLiteral("validation.every_steps"))}},
        {QStringLiteral("guidance_scale"),
         {QStringLiteral("validation.guidance"), number(QStringLiteral("validation.guidance"))}},
        {QStringLiteral("caption_dropout_p"),
         {QStringLiteral("dataset.caption_dropout"),
          number(QStringLiteral("dataset.caption_dropout"))}},
        {QStringLiteral("noised_image_dropout"),
         {QStringLiteral("dataset.noised_image_dropout"),
          number(QStringLiteral("dataset.noised_image_dropout"))}},
        {QStringLiteral("id_token"),
         {QStringLiteral("trigger_word"), text(QStringLiteral("trigger_word"))}},
        {QStringLiteral("nccl_timeout"),
         {QStringLiteral("parallel.timeout_s"), number(QStringLiteral("parallel.timeout_s"))}},
    };
    const QHash<QString, QString> switches = {
        {QStringLiteral("gradient_checkpointing"), QStringLiteral("gradient_checkpointing")},
        {QStringLiteral("enable_tiling"), QStringLiteral("dataset.vae_tiling")},
        {QStringLiteral("enable_slicing"), QStringLiteral("dataset.vae_slicing")},
        {QStringLiteral("use_dynamic_cfg"), QStringLiteral("validation.dynamic_cfg")},
    };
    for (const Flag& flag : flags) {
        const QString value = flag.values.value(0);
        if (value.contains(QLatin1Char('$'))) {
            result.notUnderstood.append(
                tr("%1 (a shell variable: set the value in the form)").arg(describe(flag)));
            continue;
        }
        if (const auto found = simple.constFind(flag.name); found != simple.constEnd()) {
            if (flag.values.size() == 1 && found->second(value))
                result.mapped.append(tr("%1 → %2").arg(describe(flag), found->first));
            else
                result.notUnderstood.append(describe(flag));
        } else if (const auto sw = switches.constFind(flag.name); sw != switches.constEnd()) {
            setPath(result.job, *sw, true);
            result.mapped.append(tr("%1 → %2").arg(describe(flag), *sw));
        } else if (flag.name == QLatin1String("height_buckets")) {
            heights = flag.values;
        } else if (flag.name == QLatin1String("width_buckets")) {
            widths = flag.values;
        } else if (flag.name == QLatin1String("frame_buckets")) {
            bool ok = false;
            const QJsonArray frames = integers(flag.values, &ok);
            if (ok) {
                setPath(result.job, QStringLiteral("dataset.frame_buckets"), frames);
                result.mapped.append(
                    tr("%1 → %2").arg(describe(flag), QStringLiteral("dataset.frame_buckets")));
            } else {
                result.notUnderstood.append(describe(flag));
            }
        } else if (flag.name == QLatin1String("mixed_precision")) {
            const QString precision = value == QLatin1String("no") ? QStringLiteral("fp32") : value;
            setPath(result.job, QStringLiteral("precision"), precision);
            result.mapped.append(tr("%1 → %2").arg(describe(flag), QStringLiteral("precision")));
        } else if (flag.name == QLatin1String("optimizer")) {
            optimizer.name = value.toLower();
        } else if (flag.name == QLatin1String("use_8bit_bnb") ||
                   flag.name == QLatin1String("use_8bit")) {
            optimizer.use8bit = true;
        } else if (flag.name == QLatin1String("use_cpu_offload_optimizer")) {
            optimizer.cpuOffload = true;
        } else if (flag.name == QLatin1String("use_torchao")) {
            optimizer.torchao = true;
        } else if (flag.name == QLatin1String("data_root") && flag.values.size() == 1) {
            result.dataset.root = value;
            result.mapped.append(tr("%1 → the clips to import").arg(describe(flag)));
        } else if (flag.name == QLatin1String("dataset_file") && flag.values.size() == 1) {
            result.dataset.datasetFile = value;
            result.mapped.append(tr("%1 → the clips to import").arg(describe(flag)));
        } else if (flag.name == QLatin1String("caption_column") && flag.values.size() == 1) {
            result.dataset.captionColumn = value;
            result.mapped.append(tr("%1 → the clips to import").arg(describe(flag)));
        } else if (flag.name == QLatin1String("video_column") && flag.values.size() == 1) {
            result.dataset.videoColumn = value;
            result.mapped.append(tr("%1 → the clips to import").arg(describe(flag)));
        } else if (flag.name == QLatin1String("validation_prompt")) {
            prompts = flag.values.join(QLatin1Char(' '));
        } else if (flag.name == QLatin1String("validation_images")) {
            images = flag.values.join(QLatin1Char(' '));
        } else if (flag.name == QLatin1String("validation_prompt_separator")) {
            separator = value;
        } else if (flag.name == QLatin1String("pretrained_model_name_or_path")) {
            result.mapped.append(tr("%1 → choose that model's local folder as the model folder")
                                     .arg(describe(flag)));
        } else {
            result.notUnderstood.append(describe(flag));
        }
    }
    if (!heights.isEmpty() || !widths.isEmpty()) {
        bool heightsOk = false;
        bool widthsOk = false;
        const QJsonArray h = integers(heights, &heightsOk);
        const QJsonArray w = integers(widths, &widthsOk);
        if (heightsOk && widthsOk) {
            // The factory trains on every height with every width.
            QJsonArray buckets;
            for (const QJsonValue& height : h)
                for (const QJsonValue& width : w)
                    buckets.append(QJsonArray{height, width});
            setPath(result.job, QStringLiteral("dataset.resolution_buckets"), buckets);
            result.mapped.append(tr("--height_buckets, --width_buckets → %1")
                                     .arg(QStringLiteral("dataset.resolution_buckets")));
        } else {
            result.notUnderstood.append(
                tr("--height_buckets %1 --width_buckets %2")
                    .arg(heights.join(QLatin1Char(' ')), widths.join(QLatin1Char(' '))));
        }
    }
    optimizer.weightDecay = result.job.value(QStringLiteral("optimizer"))
                                .toObject()
                                .value(QStringLiteral("weight_decay"))
                                .toDouble(optimizer.weightDecay);
    if (!optimizer.name.isEmpty() || optimizer.use8bit || optimizer.cpuOffload)
        mapOptimizer(optimizer, result);
    // torchao only changes which 8-bit optimizer the factory builds.
    if (optimizer.torchao && !optimizer.use8bit)
        result.notUnderstood.append(QStringLiteral("--use_torchao"));
    if (!prompts.isEmpty()) {
        QJsonArray list;
        for (const QString& prompt : prompts.split(separator)) {
            if (!prompt.trimmed().isEmpty())
                list.append(prompt.trimmed());
        }
        setPath(result.job, QStringLiteral("validation.prompts"), list);
        result.mapped.append(tr("--validation_prompt (%n prompt(s)) → validation.prompts", nullptr,
                                static_cast<int>(list.size())));
    }
    if (!images.isEmpty()) {
        QJsonArray list;
        for (const QString& image : images.split(separator)) {
            if (!image.trimmed().isEmpty())
                list.append(image.trimmed());
        }
        setPath(result.job, QStringLiteral("validation.images"), list);
        result.mapped.append(tr("--validation_images (%n image(s)) → validation.images", nullptr,
                                static_cast<int>(list.size())));
    }
    return result;
}

void FactoryCommandImport::mapOptimizer(const OptimizerFlags& flags, Result& result) {
    // cogvideox-factory's get_optimizer (training/utils.py): --optimizer defaults to adam;
    // --use_8bit takes bitsandbytes' Adam8bit or AdamW8bit (torchao's with --use_torchao);
    // --use_cpu_offload_optimizer wraps torch's Adam or AdamW in torchao's CPUOffloadOptimizer.
    const QString name = flags.name.isEmpty() ? QStringLiteral("adam") : flags.name;
    const bool adamFamily = name == QLatin1String("adam") || name == QLatin1String("adamw");
    QString engineName = name;
    // Adam adds its weight decay to the gradient; Tuneframe's 8-bit and CPU-offloaded
    // optimizers decay the weights as AdamW does. bitsandbytes' Adam8bit already does that, so
    // only torch's and torchao's Adam change meaning, and only with a weight decay.
    bool decayBecomesDecoupled = false;
    if (adamFamily && flags.cpuOffload) {
        engineName = QStringLiteral("adamw-cpu-offload");
        decayBecomesDecoupled = name == QLatin1String("adam") && flags.weightDecay != 0.0;
    } else if (adamFamily && flags.use8bit) {
        engineName = QStringLiteral("adamw8bit");
        decayBecomesDecoupled =
            name == QLatin1String("adam") && flags.torchao && flags.weightDecay != 0.0;
    }
    setPath(result.job, QStringLiteral("optimizer.name"), engineName);

    QStringList given;
    if (!flags.name.isEmpty())
        given.append(QStringLiteral("--optimizer ") + flags.name);
    if (flags.use8bit && adamFamily)
        given.append(QStringLiteral("--use_8bit"));
    if (flags.cpuOffload && adamFamily)
        given.append(QStringLiteral("--use_cpu_offload_optimizer"));
    if (given.isEmpty())
        given.append(tr("the factory's default optimizer (adam)"));
    QString line =
        tr("%1 → %2 = %3")
            .arg(given.join(QStringLiteral(", ")), QStringLiteral("optimizer.name"), engineName);
    if (decayBecomesDecoupled)
        line += QLatin1Char(' ') +
                tr("(its weight decay now shrinks the weights as AdamW does, instead of being "
                   "added to the gradient as Adam does: Tuneframe's 8-bit and CPU-offloaded "
                   "optimizers are AdamW)");
    else if (flags.use8bit && flags.cpuOffload && adamFamily)
        line += QLatin1Char(' ') + tr("(the CPU-offloaded optimizer keeps its state in 32 bits)");
    result.mapped.append(line);

    if (flags.use8bit && !adamFamily)
        result.notUnderstood.append(
            tr("--use_8bit (the factory allows 8-bit states only with adam and adamw)"));
    if (flags.cpuOffload && !adamFamily)
        result.notUnderstood.append(
            tr("--use_cpu_offload_optimizer (Tuneframe offloads only adam and adamw to the CPU)"));
}
