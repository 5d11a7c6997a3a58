// One spelling table per enum (base/spellings.hpp): parses an option's value and prints it back.
#include <gtest/gtest.h>

#include <cerrno>

#include "base/spellings.hpp"

namespace {

enum class Colour { Red, Green, Blue };
constexpr pdt::Spelling<Colour> kColours[] = {{Colour::Red, "red"}, {Colour::Green, "green"}};

TEST(Spellings, ParseEachSpellingAndPrintItBack) {
    EXPECT_EQ(*pdt::parse_spelling("colour", "red", kColours), Colour::Red);
    EXPECT_EQ(*pdt::parse_spelling("colour", "green", kColours), Colour::Green);
    EXPECT_STREQ(pdt::spelling(Colour::Green, kColours), "green");
}

TEST(Spellings, AnUnknownSpellingIsEinvalListingEveryOne) {
    const auto r = pdt::parse_spelling("colour", "Red", kColours);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().code, EINVAL);
    EXPECT_TRUE(r.error().usage);
    EXPECT_EQ(r.error().message(), "parse option --colour \"Red\": Invalid argument (one of red, green)");
    EXPECT_FALSE(pdt::parse_spelling("colour", "", kColours).ok());
}

TEST(Spellings, AValueTheTableLacksPrintsAsAQuestionMark) {
    EXPECT_STREQ(pdt::spelling(Colour::Blue, kColours), "?");
}

}  // namespace
