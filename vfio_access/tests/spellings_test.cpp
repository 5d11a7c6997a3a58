// One spelling table per enum (vfio_access/spellings.hpp): parses an option's value and prints it back.
#include <gtest/gtest.h>

#include <cerrno>

#include "vfio_access/spellings.hpp"

namespace {

enum class Colour { Red, Green, Blue };
constexpr vfio::Spelling<Colour> kColours[] = {{Colour::Red, "red"}, {Colour::Green, "green"}};

TEST(Spellings, ParseEachSpellingAndPrintItBack) {
    EXPECT_EQ(*vfio::parse_spelling("colour", "red", kColours), Colour::Red);
    EXPECT_EQ(*vfio::parse_spelling("colour", "green", kColours), Colour::Green);
    EXPECT_STREQ(vfio::spelling(Colour::Green, kColours), "green");
}

TEST(Spellings, AnUnknownSpellingIsEinvalListingEveryOne) {
    const auto r = vfio::parse_spelling("colour", "Red", kColours);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, EINVAL);
    EXPECT_EQ(r.error().message(), "parse option --colour \"Red\": Invalid argument (one of red, green)");
    EXPECT_FALSE(vfio::parse_spelling("colour", "", kColours).ok());
}

TEST(Spellings, AValueTheTableLacksPrintsAsAQuestionMark) {
    EXPECT_STREQ(vfio::spelling(Colour::Blue, kColours), "?");
}

}  // namespace
