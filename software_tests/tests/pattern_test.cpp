#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "pattern/crc64.hpp"
#include "pattern/pattern.hpp"
#include "pattern/worker_pool.hpp"

namespace {

using pattern::Mismatch;
using pattern::Pattern;

TEST(Pattern, GenerateMatchesWordAndIsSeekable) {
    const Pattern p(3, 1);
    std::vector<uint32_t> whole(10000);
    p.generate(whole.data(), whole.size(), 500);
    for (size_t i = 0; i < whole.size(); i += 97)
        EXPECT_EQ(whole[i], p.word(500 + i));
    // Any block generated on its own equals the same block of the whole.
    std::vector<uint32_t> block(1234);
    p.generate(block.data(), block.size(), 500 + 4321);
    EXPECT_TRUE(std::equal(block.begin(), block.end(), whole.begin() + 4321));
}

TEST(Pattern, CrossesSegmentBoundary) {
    const Pattern p(1, 0);
    const uint64_t first = (uint64_t{1} << 32) - 10;
    std::vector<uint32_t> words(20);
    p.generate(words.data(), words.size(), first);
    for (size_t i = 0; i < words.size(); ++i)
        EXPECT_EQ(words[i], p.word(first + i));
    EXPECT_TRUE(p.verify(words.data(), words.size(), first).ok());
    // The next segment is keyed differently: its words are not the first segment's again.
    EXPECT_NE(p.word(uint64_t{1} << 32), p.word(0));
}

TEST(Pattern, NoRepeatsWithinABlock) {
    const Pattern p(0, 0);
    std::vector<uint32_t> words(1 << 16);
    p.generate(words.data(), words.size(), 0);
    std::set<uint32_t> seen(words.begin(), words.end());
    EXPECT_EQ(seen.size(), words.size());
}

TEST(Pattern, DistinctPerStreamPassAndOffset) {
    std::vector<uint32_t> a(4096), b(4096);
    Pattern(1, 0).generate(a.data(), a.size(), 0);
    // Another stream, another pass, another offset: (almost) every word differs.
    for (const auto& [other, first] : std::vector<std::pair<Pattern, uint64_t>>{
             {Pattern(2, 0), 0}, {Pattern(1, 1), 0}, {Pattern(1, 0), 4096}, {Pattern(1, 0), 1}}) {
        const Mismatch m = other.verify(a.data(), a.size(), first);
        EXPECT_GT(m.bad_words, a.size() - 4) << "stream " << other.stream() << " pass " << other.pass();
        other.generate(b.data(), b.size(), first);
        EXPECT_NE(a, b);
    }
}

TEST(Pattern, VerifyReportsFirstBadWordAndCount) {
    const Pattern p(5, 2);
    std::vector<uint32_t> words(20000);
    p.generate(words.data(), words.size(), 1000);
    EXPECT_TRUE(p.verify(words.data(), words.size(), 1000).ok());
    words[7000] ^= 0x100;  // one bit flip
    words[15000] = 0;
    words[19999] = ~words[19999];
    const Mismatch m = p.verify(words.data(), words.size(), 1000);
    EXPECT_EQ(m.bad_words, 3u);
    EXPECT_EQ(m.first_bad_word, 8000u);
    EXPECT_EQ(m.expected, p.word(8000));
    EXPECT_EQ(m.actual, p.word(8000) ^ 0x100);
    const auto hex8 = [](uint32_t v) { char t[9]; std::snprintf(t, 9, "%08x", v); return std::string(t); };
    const std::string words_part =
        ": expected 0x" + hex8(p.word(8000)) + " actual 0x" + hex8(p.word(8000) ^ 0x100) + ", 3 bad words";
    // Each form names the one offset it gives: never a bare "byte offset".
    EXPECT_EQ(m.describe(), "first bad word at pattern offset 0x7d00" + words_part);
    EXPECT_EQ(m.describe(1000), "first bad word at pattern offset 0x7d00 (0x6d60 past 0xfa0)" + words_part);
    EXPECT_EQ(m.describe(1000, "buffer"), "first bad word at buffer offset 0x6d60" + words_part);
}

// The poison differs from the pattern in every word (and in every bit), whichever store
// writes it and whether or not a pool shares the work.
TEST(Pattern, PoisonDiffersFromThePatternInEveryWord) {
    const Pattern p(3, 1);
    pattern::WorkerPool pool(2);
    for (const auto store : {pattern::Store::Cached, pattern::Store::NonTemporal}) {
        std::vector<uint32_t> words(3 * pattern::BLOCK_WORDS + 5);
        pattern::poison(&pool, p, words.data() + 1, words.size() - 1, 77, store);
        const Mismatch m = p.verify(words.data() + 1, words.size() - 1, 77);
        EXPECT_EQ(m.bad_words, words.size() - 1);
        for (size_t i = 1; i < words.size(); ++i)
            ASSERT_EQ(words[i], ~p.word(77 + i - 1)) << i;
        EXPECT_EQ(words[0], 0u);  // nothing outside the range
    }
}

TEST(Pattern, ZeroFilledBufferFails) {
    std::vector<uint32_t> zeros(1000, 0);
    const Mismatch m = Pattern(0, 0).verify(zeros.data(), zeros.size(), 0);
    EXPECT_GE(m.bad_words, 999u);
}

TEST(Mismatch, MergeKeepsEarliest) {
    Mismatch a{2, 50, 1, 2};
    a.merge(Mismatch{3, 10, 3, 4});
    a.merge(Mismatch{1, 70, 5, 6});
    a.merge(Mismatch{});
    EXPECT_EQ(a.bad_words, 6u);
    EXPECT_EQ(a.first_bad_word, 10u);
    EXPECT_EQ(a.expected, 3u);
    EXPECT_EQ(a.actual, 4u);
}

TEST(WorkerPool, ParallelGenerateAndVerifyMatchSerial) {
    pattern::WorkerPool pool(3);
    const Pattern p(9, 4);
    const size_t count = pattern::BLOCK_WORDS * 5 + 123;
    std::vector<uint32_t> parallel(count), serial(count);
    pattern::generate(&pool, p, parallel.data(), count, 77, pattern::Store::NonTemporal);
    p.generate(serial.data(), count, 77);
    EXPECT_EQ(parallel, serial);
    parallel[pattern::BLOCK_WORDS * 3 + 5] ^= 1;
    parallel[pattern::BLOCK_WORDS * 1 + 9] ^= 1;
    const Mismatch m = pattern::verify(&pool, p, parallel.data(), count, 77);
    EXPECT_EQ(m.bad_words, 2u);
    EXPECT_EQ(m.first_bad_word, 77 + pattern::BLOCK_WORDS + 9);
}

TEST(Pattern, StreamingStoresWriteTheSameWordsAsCachedOnes) {
    const Pattern p(3, 1);
    // Every misalignment of the start and a tail that is not a whole vector, across a segment end.
    for (size_t skew = 0; skew < 9; ++skew) {
        std::vector<uint32_t> cached(1000 + skew), streamed(1000 + skew, 0xdeadbeef);
        const uint64_t first = (uint64_t{1} << 32) - 500;
        p.generate(cached.data() + skew, 1000 - skew, first);
        p.generate(streamed.data() + skew, 1000 - skew, first, pattern::Store::NonTemporal);
        EXPECT_TRUE(std::equal(cached.begin() + skew, cached.begin() + 1000, streamed.begin() + skew)) << skew;
        for (size_t i = 0; i < skew; ++i)
            EXPECT_EQ(streamed[i], 0xdeadbeefu) << "wrote before dst at skew " << skew;
        EXPECT_TRUE(p.verify(streamed.data() + skew, 1000 - skew, first).ok());
    }
}

// The vector loops (AVX-512, AVX2 or the compiler's) against the word function at every start
// alignment and tail length, in both store kinds; verify finds one flipped word at every place.
TEST(Pattern, VectorLoopsMatchTheWordFunctionAtEveryAlignmentAndTail) {
    const pattern::Pattern p(0x10003, 2);
    std::vector<uint32_t> buffer(200);
    for (size_t start = 0; start < 17; ++start)
        for (size_t count : {1u, 7u, 8u, 15u, 16u, 17u, 33u, 100u})
            for (auto store : {pattern::Store::Cached, pattern::Store::NonTemporal}) {
                std::fill(buffer.begin(), buffer.end(), 0u);
                p.generate(buffer.data() + start, count, 1000 + start, store);
                for (size_t i = 0; i < count; ++i)
                    ASSERT_EQ(buffer[start + i], p.word(1000 + start + i)) << start << " " << count << " " << i;
                ASSERT_EQ(buffer[start + count], 0u);  // nothing written past the run
                ASSERT_TRUE(p.verify(buffer.data() + start, count, 1000 + start).ok());
                for (size_t bad = 0; bad < count; ++bad) {
                    buffer[start + bad] ^= 0x80000000u;
                    const auto m = p.verify(buffer.data() + start, count, 1000 + start);
                    buffer[start + bad] ^= 0x80000000u;
                    ASSERT_EQ(m.bad_words, 1u);
                    ASSERT_EQ(m.first_bad_word, 1000 + start + bad);
                }
            }
}

TEST(WorkerPool, ManyCallersShareOnePool) {
    pattern::WorkerPool pool(2);
    std::vector<std::thread> callers;
    std::atomic<int> failures{0};
    for (int c = 0; c < 4; ++c) {
        callers.emplace_back([&, c] {
            const Pattern p(c, 0);
            std::vector<uint32_t> words(pattern::BLOCK_WORDS * 3);
            for (int round = 0; round < 5; ++round) {
                pattern::generate(&pool, p, words.data(), words.size(), round * words.size());
                if (!pattern::verify(&pool, p, words.data(), words.size(), round * words.size()).ok())
                    ++failures;
            }
        });
    }
    for (auto& t : callers)
        t.join();
    EXPECT_EQ(failures.load(), 0);
}

TEST(WorkerPool, ZeroThreadsRunsOnCaller) {
    pattern::WorkerPool pool(0);
    std::vector<int> hits(10, 0);
    pool.parallel_for(hits.size(), [&](size_t i) { hits[i]++; });
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), 10);
}

}  // namespace

// CRC-64 of fpga_sio's CRC64 designs: CRC-64/XZ without its final XOR.
namespace {

TEST(Crc64, XzCheckValue) {
    const char* check = "123456789";
    EXPECT_EQ(pattern::crc64_xz(check, 9), 0x995DC9BBDF1939FAull);
    EXPECT_EQ(pattern::crc64_card(check, 9), ~0x995DC9BBDF1939FAull);
}

TEST(Crc64, SliceBy8MatchesBitwiseOverWordsAndTails) {
    // Bit-at-a-time reference: the register XORed with each 64-bit word, shifted 64 times.
    auto reference = [](const std::vector<uint64_t>& words) {
        uint64_t crc = ~0ull;
        for (uint64_t w : words) {
            crc ^= w;
            for (int bit = 0; bit < 64; ++bit)
                crc = (crc & 1) ? (crc >> 1) ^ 0xC96C5795D7870F42ull : crc >> 1;
        }
        return crc;
    };
    std::vector<uint64_t> words;
    uint64_t x = 0;
    for (int i = 0; i < 37; ++i)
        words.push_back(x = pattern::lcg64_next(x));
    EXPECT_EQ(pattern::crc64_card(words.data(), words.size() * 8), reference(words));
    // Split anywhere, the update continues the same CRC.
    const uint64_t head = pattern::crc64_update(pattern::kCrc64Initial, words.data(), 13);
    EXPECT_EQ(pattern::crc64_update(head, reinterpret_cast<const uint8_t*>(words.data()) + 13, words.size() * 8 - 13),
              reference(words));
    // A flipped bit changes it.
    const uint64_t before = pattern::crc64_card(words.data(), words.size() * 8);
    words[5] ^= 1ull << 40;
    EXPECT_NE(pattern::crc64_card(words.data(), words.size() * 8), before);
}

TEST(Crc64, Lcg64IsFpgaSiosSequence) {
    EXPECT_EQ(pattern::lcg64_next(0), 1442695040888963407ull);
    EXPECT_EQ(pattern::lcg64_next(1), 6364136223846793005ull + 1442695040888963407ull);
}

}  // namespace
