#include "app/engine/EngineEnvironment.h"

#include <QThread>

#include <algorithm>

const char* const EngineEnvironment::kBlasThreadsVariable = "OPENBLAS_NUM_THREADS";

QProcessEnvironment EngineEnvironment::forTraining(QProcessEnvironment environment, int cores) {
    const QString variable = QString::fromLatin1(kBlasThreadsVariable);
    if (!environment.contains(variable))
        environment.insert(variable, QString::number(std::max(1, cores - 1)));
    return environment;
}

QProcessEnvironment EngineEnvironment::forTraining() {
    return forTraining(QProcessEnvironment::systemEnvironment(), QThread::idealThreadCount());
}
