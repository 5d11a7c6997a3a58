// The main of a fuzz target in the normal build: every input file named (a directory: each file
// in it) is fed once to LLVMFuzzerTestOneInput, as libFuzzer replays a corpus. CI runs every
// target over its seed corpus and its former crashers this way under ASan/UBSan (ctest
// fuzz_replay.<target>), in the build it already has; fuzzing proper, which mutates the inputs,
// is scripts/fuzz.sh's clang build. A failed property aborts. Exit 0 with the count of inputs
// replayed; 1 when no input was found (a replay of nothing proves nothing); 2 on a usage error.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::vector<std::filesystem::path> inputs(const std::filesystem::path& path) {
    std::vector<std::filesystem::path> found;
    if (std::filesystem::is_directory(path)) {
        for (const auto& entry : std::filesystem::directory_iterator(path))
            if (entry.is_regular_file())
                found.push_back(entry.path());
    } else if (std::filesystem::is_regular_file(path)) {
        found.push_back(path);
    }
    return found;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE|DIRECTORY...\n", argv[0]);
        return 2;
    }
    size_t replayed = 0;
    for (int i = 1; i < argc; ++i)
        for (const std::filesystem::path& file : inputs(argv[i])) {
            std::ifstream in(file, std::ios::binary);
            const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
            ++replayed;
        }
    std::printf("%s: %zu input(s) replayed\n", argv[0], replayed);
    if (replayed == 0) {
        std::fprintf(stderr, "%s: no input found in the paths given\n", argv[0]);
        return 1;
    }
    return 0;
}
