#pragma once

#include <QProcessEnvironment>

// The environment the studio starts training engines in (a run, the queue's runner).
// LibTorch's CPU kernels multiply through OpenBLAS, whose worker threads (one per core) wait for
// work by spinning: with the studio drawing the run's plots on one core, a 2-core machine ran the
// demo model's steps 4x slower (23 ms alone, 91 ms beside one busy core; 34 ms with one BLAS
// thread). So the engine gets one BLAS thread fewer than the cores, unless the user chose.
class EngineEnvironment {
public:
    static const char* const kBlasThreadsVariable;

    // environment, with the BLAS threads set to cores - 1 (at least 1) where it does not set
    // them.
    static QProcessEnvironment forTraining(QProcessEnvironment environment, int cores);
    // This process's environment and this machine's cores.
    static QProcessEnvironment forTraining();
};
