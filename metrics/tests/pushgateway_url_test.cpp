#include <gtest/gtest.h>

#include "metrics/pushgateway.hpp"

namespace {

metrics::PushUrl parsed(const std::string& url) {
    auto result = metrics::parse_push_url(url);
    EXPECT_TRUE(result.ok()) << url << ": " << (result.ok() ? "" : result.error().message());
    return result.ok() ? *result : metrics::PushUrl{};
}

std::string refusal(const std::string& url) {
    const auto result = metrics::parse_push_url(url);
    EXPECT_FALSE(result.ok()) << url;
    if (result.ok())
        return "";
    EXPECT_EQ(result.error().code, EINVAL);
    return result.error().message();
}

TEST(PushUrl, HostPortAndPath) {
    const auto plain = parsed("http://127.0.0.1:9091");
    EXPECT_EQ(plain.host, "127.0.0.1");
    EXPECT_EQ(plain.port, 9091);
    EXPECT_EQ(plain.path, "");
    const auto named = parsed("http://gateway.lab-2.example:80/prefix/pg/");
    EXPECT_EQ(named.host, "gateway.lab-2.example");
    EXPECT_EQ(named.port, 80);
    EXPECT_EQ(named.path, "/prefix/pg");
    EXPECT_EQ(parsed("HTTP://localhost:65535/").path, "");
    EXPECT_EQ(parsed("http://localhost:1/a%2Fb:c@d").path, "/a%2Fb:c@d");
    const auto ipv6 = parsed("http://[::1]:9091/pg");
    EXPECT_EQ(ipv6.host, "::1");
    EXPECT_EQ(ipv6.path, "/pg");
}

TEST(PushUrl, ReadsBackFromItsSpelling) {
    for (const std::string url : {"http://127.0.0.1:9091", "http://gw:80/prefix/pg", "http://[fe80::1]:9091/x"})
        EXPECT_EQ(metrics::to_string(parsed(url)), url);
}

TEST(PushUrl, SchemeRefusals) {
    EXPECT_EQ(refusal("https://gw:9091"),
              "parse Pushgateway URL https://gw:9091: Invalid argument (https is not supported: the push is plain "
              "HTTP, give http://HOST:PORT[/PATH])");
    EXPECT_EQ(refusal("ftp://gw:21"), "parse Pushgateway URL ftp://gw:21: Invalid argument (scheme \"ftp\" is not "
                                      "supported: give http://HOST:PORT[/PATH])");
    EXPECT_EQ(refusal("gw:9091"),
              "parse Pushgateway URL gw:9091: Invalid argument (not a URL: give http://HOST:PORT[/PATH])");
    EXPECT_EQ(refusal(""), "parse Pushgateway URL \"\": Invalid argument (not a URL: give http://HOST:PORT[/PATH])");
}

TEST(PushUrl, PortRefusals) {
    EXPECT_EQ(refusal("http://gw"), "parse Pushgateway URL http://gw: Invalid argument (no port: give "
                                    "http://HOST:PORT (Pushgateway listens on 9091 by default))");
    EXPECT_EQ(refusal("http://gw:/x"), "parse Pushgateway URL http://gw:/x: Invalid argument (no port: give "
                                       "http://HOST:PORT (Pushgateway listens on 9091 by default))");
    EXPECT_EQ(refusal("http://gw:0"), "parse Pushgateway URL http://gw:0: Invalid argument (port 0 is not in 1..65535)");
    EXPECT_EQ(refusal("http://gw:65536"),
              "parse Pushgateway URL http://gw:65536: Invalid argument (port 65536 is not in 1..65535)");
    EXPECT_EQ(refusal("http://gw:90x1"),
              "parse Pushgateway URL http://gw:90x1: Invalid argument (port \"90x1\" is not a number 1..65535)");
    EXPECT_EQ(refusal("http://gw:+9091"),
              "parse Pushgateway URL http://gw:+9091: Invalid argument (port \"+9091\" is not a number 1..65535)");
    EXPECT_EQ(refusal("http://gw:9091:1"),
              "parse Pushgateway URL http://gw:9091:1: Invalid argument (port \"9091:1\" is not a number 1..65535)");
}

TEST(PushUrl, HostRefusals) {
    EXPECT_EQ(refusal("http://:9091"),
              "parse Pushgateway URL http://:9091: Invalid argument (host \"\" is not a host name or an IPv4 address)");
    EXPECT_EQ(refusal("http://gw..lab:9091"), "parse Pushgateway URL http://gw..lab:9091: Invalid argument (host "
                                              "\"gw..lab\" is not a host name or an IPv4 address)");
    EXPECT_EQ(refusal("http://g_w:9091"),
              "parse Pushgateway URL http://g_w:9091: Invalid argument (host \"g_w\" is not a host name or an IPv4 "
              "address)");
    EXPECT_EQ(refusal("http://user@gw:9091"),
              "parse Pushgateway URL http://user@gw:9091: Invalid argument (user info (user@) is not supported)");
    EXPECT_EQ(refusal("http://[::1:9091"),
              "parse Pushgateway URL http://[::1:9091: Invalid argument (an IPv6 host is written [hex:hex::hex])");
    EXPECT_EQ(refusal("http://[gw]:9091"),
              "parse Pushgateway URL http://[gw]:9091: Invalid argument (an IPv6 host is written [hex:hex::hex])");
    EXPECT_EQ(refusal("http://[:]:9091"),
              "parse Pushgateway URL http://[:]:9091: Invalid argument (an IPv6 host is written [hex:hex::hex])");
    EXPECT_EQ(refusal("http://[1.2.3.4]:9091"),
              "parse Pushgateway URL http://[1.2.3.4]:9091: Invalid argument (an IPv6 host is written [hex:hex::hex])");
    EXPECT_EQ(refusal("http://[::1]9091"),
              "parse Pushgateway URL http://[::1]9091: Invalid argument (after ] comes :PORT)");
}

TEST(PushUrl, PathRefusals) {
    EXPECT_EQ(refusal("http://gw:9091/a?b=1"),
              "parse Pushgateway URL http://gw:9091/a?b=1: Invalid argument (a query (?) or fragment (#) is not "
              "supported)");
    EXPECT_EQ(refusal("http://gw:9091#top"),
              "parse Pushgateway URL http://gw:9091#top: Invalid argument (a query (?) or fragment (#) is not "
              "supported)");
    EXPECT_EQ(refusal("http://gw:9091/a b"), "parse Pushgateway URL http://gw:9091/a b: Invalid argument (the path "
                                             "holds a character a URL path cannot (escape it as %XX))");
    EXPECT_EQ(refusal("http://gw:9091/a%2"), "parse Pushgateway URL http://gw:9091/a%2: Invalid argument (a % in the "
                                             "path is not followed by two hex digits)");
    EXPECT_EQ(refusal("http://gw:9091/a%zz"), "parse Pushgateway URL http://gw:9091/a%zz: Invalid argument (a % in "
                                              "the path is not followed by two hex digits)");
    EXPECT_EQ(refusal("http://gw:9091//x"),
              "parse Pushgateway URL http://gw:9091//x: Invalid argument (the path has an empty segment (//))");
}

TEST(GroupingPath, ValuesUrlEscaped) {
    EXPECT_EQ(*metrics::grouping_path("test_dma_bridge", "lab1"), "/metrics/job/test_dma_bridge/instance/lab1");
    EXPECT_EQ(*metrics::grouping_path("pdt", "lab1:0000:15:00.0"), "/metrics/job/pdt/instance/lab1%3A0000%3A15%3A00.0");
    EXPECT_EQ(*metrics::grouping_path("a b", "x~y-z_w.v"), "/metrics/job/a%20b/instance/x~y-z_w.v");
    EXPECT_EQ(*metrics::grouping_path("pdt", "\xc3\xa9%"), "/metrics/job/pdt/instance/%C3%A9%25");
}

// Pushgateway README, "URL": <label>@base64 with RFC 4648 section 5's alphabet; "=" for empty.
TEST(GroupingPath, SlashEmptyAndDotValuesInBase64) {
    EXPECT_EQ(*metrics::grouping_path("pdt", "/var/tmp"), "/metrics/job/pdt/instance@base64/L3Zhci90bXA");
    EXPECT_EQ(*metrics::grouping_path("a/b", "x"), "/metrics/job@base64/YS9i/instance/x");
    EXPECT_EQ(*metrics::grouping_path("pdt", ""), "/metrics/job/pdt/instance@base64/=");
    EXPECT_EQ(*metrics::grouping_path("..", "."), "/metrics/job@base64/Li4/instance@base64/Lg");
    EXPECT_EQ(*metrics::grouping_path("pdt", "?>/"), "/metrics/job/pdt/instance@base64/Pz4v");
    EXPECT_EQ(*metrics::grouping_path("pdt", "\xfb\xff/"), "/metrics/job/pdt/instance@base64/-_8v");  // - and _ of section 5
}

TEST(GroupingPath, EmptyJobRefused) {
    const auto result = metrics::grouping_path("", "lab1");
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message(),
              "build the Pushgateway grouping key job \"\": Invalid argument (the gateway needs a job name)");
}

}  // namespace
