#include "app/engine/EngineEnvironment.h"

#include <QThread>

#include <algorithm>

const char* const EngineEnvironment::kBlasThreadsVariable = "OPENBLAS_NUM_THREADS";
const char* const EngineEnvironment::kOpenMpThreadsVariable = "OMP_NUM_THREADS";

QProcessEnvironment EngineEnvironment::forTraining(QProcessEnvironment environment, int cores) {
    for (const char* name : {kBlasThreadsVariable, kOpenMpThreadsVariable}) {
        const QString variable = QString::fromLatin1(name);
        if (!environment.contains(variable))
            environment.insert(variable, QString::number(std::max(1, cores - 1)));
    }
    return environment;
}

QProcessEnvironment EngineEnvironment::forTraining() {
    return forTraining(QProcessEnvironment::systemEnvironment(), QThread::idealThreadCount());
}
