// SPDX-License-Identifier: Apache-2.0
// The benchmarks' one argument: the number of repetitions (best of them is reported). --help prints the usage
// and exits 0; anything else that is not an integer in [1, 1000] prints it and exits 2 (never a table of zeros).
#ifndef CMSWITCH_BENCH_BENCH_ARGS_H
#define CMSWITCH_BENCH_BENCH_ARGS_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

inline int bench_repetitions(int argc, char** argv, const char* name, const char* what) {
    auto usage = [&](FILE* to) { std::fprintf(to, "usage: %s [repetitions, 1..1000; default 3]\n%s\n", name, what); };
    if (argc == 1)
        return 3;
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        std::exit(0);
    }
    char* end = nullptr;
    const long reps = argc == 2 ? std::strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || end == argv[1] || *end != '\0' || reps < 1 || reps > 1000) {
        usage(stderr);
        std::exit(2);
    }
    return static_cast<int>(reps);
}

#endif
