// Keeps the PCIe link of GPU 0 busy with pinned host<->device copies for the given seconds and
// prints the bandwidth per direction, so config space can be sampled under load.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e = (call);                                                           \
        if (e != cudaSuccess) {                                                           \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(e));        \
            return 1;                                                                     \
        }                                                                                 \
    } while (0)

int main(int argc, char** argv) {
    const double seconds = argc > 1 ? std::atof(argv[1]) : 5.0;
    const size_t bytes = 256u << 20;
    void* host = nullptr;
    void* device = nullptr;
    CHECK(cudaMallocHost(&host, bytes));
    CHECK(cudaMalloc(&device, bytes));
    for (int dir = 0; dir < 2; ++dir) {
        size_t moved = 0;
        const auto start = std::chrono::steady_clock::now();
        double elapsed = 0;
        while (elapsed < seconds / 2) {
            if (dir == 0)
                CHECK(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
            else
                CHECK(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
            moved += bytes;
            elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        }
        std::printf("%s pinned: %.2f GB/s (%zu bytes in %.3f s)\n", dir == 0 ? "H2D" : "D2H", moved / elapsed / 1e9,
                    moved, elapsed);
    }
    CHECK(cudaFree(device));
    CHECK(cudaFreeHost(host));
    return 0;
}
