#pragma once

#include <QProcessEnvironment>

// The environment the studio starts training engines in (a run, the queue's runner).
// LibTorch's CPU kernels run on OpenMP threads and multiply through OpenBLAS, whose threads both
// wait for work by spinning: with the studio drawing the run's plots on one core, a 2-core
// machine ran the demo model's steps 4x slower (23 ms alone, 91 ms beside one busy core; 34 ms
// with one BLAS thread). So the engine gets one thread fewer than the cores in each pool (as
// torchrun gives its workers a fixed OMP_NUM_THREADS), unless the user chose.
class EngineEnvironment {
public:
    static const char* const kBlasThreadsVariable;
    static const char* const kOpenMpThreadsVariable;

    // environment, with both pools set to cores - 1 threads (at least 1) where it does not set
    // them.
    static QProcessEnvironment forTraining(QProcessEnvironment environment, int cores);
    // This process's environment and this machine's cores.
    static QProcessEnvironment forTraining();
};
