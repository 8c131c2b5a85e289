// page_cache_copy: how fast can the host move a file that is already in the page cache
// into pinned memory? (the bound of `ragged lines FILE` on the GPU, PERFORMANCE v0.18).
// Each thread copies 2 MiB pieces of its share of a fresh mapping (or pread) into its
// own pinned buffer; variants differ in how the mapping's page tables are filled.
//
//   nvcc -O2 -o page_cache_copy experiments/page_cache_copy.cu
//   ./page_cache_copy FILE [threads...]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

static const size_t PIECE = 2u << 20;

struct Job {
    int fd;
    const char* map;
    size_t begin, end;
    int variant;  // 0 mmap, 1 mmap + MADV_POPULATE_READ per piece, 2 pread, 3 mmap MAP_POPULATE (premapped)
    char* dst;
    size_t window;  // MADV_POPULATE_READ window
};

static double now() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void* work(void* arg) {
    Job* j = (Job*)arg;
    for (size_t at = j->begin; at < j->end; at += PIECE) {
        size_t n = j->end - at < PIECE ? j->end - at : PIECE;
        if (j->variant == 2) {
            size_t done = 0;
            while (done < n) {
                ssize_t r = pread(j->fd, j->dst + done, n - done, at + done);
                if (r <= 0) break;
                done += r;
            }
        } else {
            if (j->variant == 1 && (at - j->begin) % j->window == 0) {
                size_t w = j->end - at < j->window ? j->end - at : j->window;
                madvise((void*)(j->map + at), w, MADV_POPULATE_READ);
            }
            memcpy(j->dst, j->map + at, n);
        }
    }
    return NULL;
}

int main(int argc, char** argv) {
    if (argc < 2) return 1;
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    size_t len = st.st_size;
    // Warm the page cache.
    {
        char* buf = (char*)malloc(PIECE);
        for (size_t at = 0; at < len; at += PIECE)
            if (pread(fd, buf, PIECE, at) < 0) break;
        free(buf);
    }
    int counts[8] = {4, 8, 12, 16};
    int nc = 4;
    if (argc > 2) {
        nc = 0;
        for (int i = 2; i < argc && nc < 8; ++i) counts[nc++] = atoi(argv[i]);
    }
    const char* names[] = {"mmap", "mmap+POPULATE_READ 64MiB", "pread", "MAP_POPULATE (incl. mmap)", "mmap+POPULATE_READ 8MiB"};
    for (int v = 0; v < 5; ++v) {
        for (int c = 0; c < nc; ++c) {
            int threads = counts[c];
            double best = 1e9;
            for (int rep = 0; rep < 3; ++rep) {
                char* dst[64];
                for (int t = 0; t < threads; ++t) cudaMallocHost((void**)&dst[t], PIECE);
                double t0 = now();
                int flags = MAP_PRIVATE | (v == 3 ? MAP_POPULATE : 0);
                const char* map = v == 2 ? NULL : (const char*)mmap(NULL, len, PROT_READ, flags, fd, 0);
                pthread_t th[64];
                Job jobs[64];
                size_t share = (len / threads + PIECE - 1) / PIECE * PIECE;
                for (int t = 0; t < threads; ++t) {
                    size_t b = t * share, e = b + share > len ? len : b + share;
                    if (b > len) b = len;
                    jobs[t] = Job{fd, map, b, e, v == 4 ? 1 : v, dst[t], (size_t)(v == 4 ? 8u << 20 : 64u << 20)};
                    pthread_create(&th[t], NULL, work, &jobs[t]);
                }
                for (int t = 0; t < threads; ++t) pthread_join(th[t], NULL);
                if (map) munmap((void*)map, len);
                double dt = now() - t0;
                if (dt < best) best = dt;
                for (int t = 0; t < threads; ++t) cudaFreeHost(dst[t]);
            }
            printf("%-28s %2d threads  %7.1f ms  %6.1f GB/s\n", names[v], threads, best * 1e3, len / best / 1e9);
        }
    }
    return 0;
}
