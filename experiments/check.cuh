// check.cuh: what the tuning experiments share (not part of the library): CHECK(x)
// stops the program with the CUDA error, file and line when a runtime call fails.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                             \
    do {                                                                                     \
        cudaError_t e = (x);                                                                 \
        if (e != cudaSuccess) {                                                              \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__);   \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)
