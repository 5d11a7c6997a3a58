// cli::name_options: the tool layer names the option that sets each request a library's hint
// asks for in its own words; report_error and OptionNamingStream apply it where errors are printed.
#include "cli/option_names.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <iostream>
#include <set>
#include <sstream>

#include "cli/command_line.hpp"

namespace {

TEST(OptionNames, TheOptionFollowsTheRequestsWords) {
    EXPECT_EQ(cli::name_options("held by root; a lock wait waits for it"),
              "held by root; a lock wait (--lock_timeout <s>) waits for it");
    EXPECT_EQ(cli::name_options("the no-IOMMU opt-in accepts that"), "the no-IOMMU opt-in (--no_iommu) accepts that");
    EXPECT_EQ(cli::name_options("is over the temperature limit of 90 C"),
              "is over the temperature limit (--max_temperature) of 90 C");
}

TEST(OptionNames, TextWithoutARequestComesBackAsItIs) {
    EXPECT_EQ(cli::name_options(""), "");
    EXPECT_EQ(cli::name_options("open /dev/vfio/12: No such file or directory"),
              "open /dev/vfio/12: No such file or directory");
}

TEST(OptionNames, EachRequestIsNamedOnceAndNeverTwice) {
    EXPECT_EQ(cli::name_options("the design file; the design file"), "the design file (--design_file); the design file");
    // A text that names the option already (a tool's own wording) is left as it is.
    EXPECT_EQ(cli::name_options("--lock_timeout: a lock wait of 2 s"), "--lock_timeout: a lock wait of 2 s");
}

TEST(OptionNames, SeveralRequestsOfOneTextAreEachNamed) {
    EXPECT_EQ(cli::name_options("the device selection or the no-IOMMU opt-in"),
              "the device selection (--device <BDF>) or the no-IOMMU opt-in (--no_iommu)");
}

TEST(OptionNames, ACallersTableNamesItsOwnRequests) {
    const cli::RequestOption table[] = {{"the speed", "--speed <GT/s>"}};
    EXPECT_EQ(cli::name_options("set the speed first", table), "set the speed (--speed <GT/s>) first");
    EXPECT_EQ(cli::name_options("a lock wait", table), "a lock wait");
}

// Every entry is usable: words to find, an option of the toolkit's spelling, no two alike.
TEST(OptionNames, TheTableNamesEachRequestOnce) {
    std::set<std::string_view> words, options;
    for (const cli::RequestOption& request : cli::request_options()) {
        EXPECT_FALSE(request.words.empty());
        EXPECT_EQ(request.option.substr(0, 2), "--") << request.option;
        EXPECT_TRUE(words.insert(request.words).second) << request.words;
        EXPECT_TRUE(options.insert(request.option).second) << request.option;
        EXPECT_EQ(cli::name_options(std::string(request.words)),
                  std::string(request.words) + " (" + std::string(request.option) + ")");
    }
    EXPECT_GE(words.size(), 8u);
}

// Only the hint is the library's advice: an operation or object that holds the words stays.
TEST(OptionNames, AnErrorsHintIsNamedAndTheRestKept) {
    const pdt::Error named = cli::name_options(
        pdt::usage_error("open the design file", "x.json", "the design file must be a readable JSON file"));
    EXPECT_EQ(named.operation, "open the design file");
    EXPECT_EQ(named.hint, "the design file (--design_file) must be a readable JSON file");
    EXPECT_TRUE(named.usage);
}

TEST(OptionNames, ReportErrorNamesTheOption) {
    std::ostringstream err;
    std::streambuf* const cerr = std::cerr.rdbuf(err.rdbuf());
    const int status = cli::report_error("tool", pdt::make_error("lock", "0000:15:00.0", EBUSY, "a lock wait waits"));
    std::cerr.rdbuf(cerr);
    EXPECT_EQ(status, 1);
    EXPECT_EQ(err.str(), "tool: " + pdt::make_error("lock", "0000:15:00.0", EBUSY, "a lock wait (--lock_timeout <s>) "
                                                    "waits").message() + "\n");
}

TEST(OptionNames, AStreamNamesTheOptionsOfEachLine) {
    std::ostringstream out;
    {
        cli::OptionNamingStream errors(out);
        errors << "Error: still busy after 2 s of lock ";
        errors << "wait\n" << "Error: no request\n" << "last the device selection";
        EXPECT_EQ(out.str(), "Error: still busy after 2 s of lock wait (--lock_timeout <s>)\nError: no request\n");
    }
    EXPECT_EQ(out.str(), "Error: still busy after 2 s of lock wait (--lock_timeout <s>)\nError: no request\n"
                         "last the device selection (--device <BDF>)");
}

TEST(OptionNames, AFlushWritesThePartOfALineWritten) {
    std::ostringstream out;
    cli::OptionNamingStream errors(out);
    errors << "Opening the H2C replay" << std::flush;
    EXPECT_EQ(out.str(), "Opening the H2C replay (--h2c_replay)");
}

}  // namespace
