// The one lie type and spelling of every model, fake and adapter test option (streams/lie.hpp).
#include <gtest/gtest.h>

#include <cerrno>

#include "streams/lie.hpp"

namespace {

using Kind = streams::Lie::Kind;

TEST(Lie, ParsesEachSpellingAndPrintsItBack) {
    EXPECT_EQ(streams::parse_lie("x", "moves_nothing")->kind, Kind::MovesNothing);
    EXPECT_EQ(streams::parse_lie("x", "completes_early")->kind, Kind::CompletesEarly);
    const auto stale = streams::parse_lie("x", "stale_after=7");
    ASSERT_TRUE(stale.ok());
    EXPECT_EQ(stale->kind, Kind::StaleAfter);
    EXPECT_EQ(stale->stale_after, 7u);
    EXPECT_EQ(streams::parse_lie("x", "stale_after=0")->stale_after, 0u);
    for (const char* honest : {"", "none"})
        EXPECT_FALSE(*streams::parse_lie("x", honest)) << honest;
    for (const char* text : {"moves_nothing", "stale_after=12", "completes_early", "none"})
        EXPECT_EQ(streams::to_string(*streams::parse_lie("x", text)), text);
}

TEST(Lie, AnUnknownLieIsEinvalNamingTheSourceAndTheSpellings) {
    const auto r = streams::parse_lie("option --cuda_lie", "bogus");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, EINVAL);
    EXPECT_EQ(r.error().message(), "parse option --cuda_lie \"bogus\": Invalid argument (unknown lie (one of "
                                   "moves_nothing, stale_after=N, completes_early))");
    EXPECT_FALSE(streams::parse_lie("x", "Moves_Nothing").ok());
    EXPECT_FALSE(streams::parse_lie("x", "moves_nothing=1").ok());
}

TEST(Lie, StaleAfterNeedsAWholeNumber) {
    for (const char* text : {"stale_after=", "stale_after=x", "stale_after=-1", "stale_after=0x10", "stale_after=1 ",
                             "stale_after=1234567890123456789"}) {
        const auto r = streams::parse_lie("PDT_SIM_FAULT", text);
        ASSERT_FALSE(r.ok()) << text;
        EXPECT_EQ(r.error().message(), std::string("parse PDT_SIM_FAULT \"") + text +
                                           "\": Invalid argument (stale_after needs a whole number of transfers "
                                           "(one of moves_nothing, stale_after=N, completes_early))");
    }
}

TEST(Lie, NamesOnlyTheThreeLies) {
    EXPECT_TRUE(streams::is_lie("moves_nothing"));
    EXPECT_TRUE(streams::is_lie("stale_after=3"));
    EXPECT_TRUE(streams::is_lie("completes_early"));
    EXPECT_FALSE(streams::is_lie("data_bit_flip"));
    EXPECT_FALSE(streams::is_lie("none"));
}

TEST(Lie, WhichTransfersMoveData) {
    const streams::Lie honest{}, nothing{Kind::MovesNothing}, stale{Kind::StaleAfter, 2}, early{Kind::CompletesEarly};
    for (uint64_t done : {0u, 1u, 2u, 100u}) {
        EXPECT_TRUE(honest.moves(done));
        EXPECT_FALSE(nothing.moves(done));
        EXPECT_EQ(stale.moves(done), done < 2) << done;
        EXPECT_TRUE(early.moves(done));
    }
    EXPECT_TRUE(early.late_tail());
    EXPECT_FALSE(stale.late_tail());
    EXPECT_FALSE(honest);
    EXPECT_TRUE(nothing);
}

}  // namespace
