// qdma_ctl run as a user runs it, on simulated QDMA designs: a queue started and dumped passes
// only when every field it wrote reads back so; a model whose context reads lie (PDT_SIM_FAULT)
// fails naming the field; the rings and the interrupt aggregation ring are dumped; a queue of a
// function no driver gave queues to is refused, nothing written; the registers by name; each
// refusal of the command line.
#include <gtest/gtest.h>

#include "test_support/run_process.hpp"

namespace {

test_support::Outcome run(const std::vector<std::string>& args, const std::vector<std::string>& environment = {}) {
    test_support::RunOptions options;
    options.environment = environment;
    options.stdin_from_null = true;
    options.timeout = std::chrono::seconds(60);
    return test_support::run_process(QDMA_CTL, args, options);
}

const std::vector<std::string> kH2cMmDump = {"--sim_design", "VD100_qdma_ddr4", "--command", "dump",
                                             "--idx", "3", "--dir", "h2c"};

TEST(QdmaCtl, AStartedQueueDumpPassesFieldByField) {
    const auto out = run(kH2cMmDump);
    EXPECT_TRUE(test_support::exited_printing(
        out, 0,
        {"queue 3 H2C MM (physical qid 3) started", "QDMA_CTXT_SELC_DEC_SW_H2C (sel 0x1), queue 3 H2C MM",
         "  qen              [32]       0x1", "QDMA_CTXT_SELC_DEC_HW_H2C (sel 0x3)", "QDMA_CTXT_SELC_DEC_CR_H2C (sel 0x5)",
         "descriptor ring: 65 entries of 32 bytes at IOVA ", ", pidx 0, cidx 0",
         " fields of 1 context(s) read back as the set-up wrote them"}));
    EXPECT_EQ(out.output.find("differs:"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("PASS: "), std::string::npos) << out.output;
}

TEST(QdmaCtl, AC2hStreamQueueDumpsItsCompletionAndInterruptRings) {
    const auto out = run({"--sim_design", "open-nic", "--command", "dump", "--idx", "2", "--dir", "c2h", "--mode",
                          "st", "--ring_entries", "17", "--interrupt_ring"});
    EXPECT_TRUE(test_support::exited_printing(
        out, 0,
        {"QDMA_CTXT_SELC_WRB (sel 0x6)", "  baddr4_high      [89:32]", "QDMA_CTXT_SELC_PFTCH (sel 0x7)",
         "  int_aggr         [139]      0x1", "descriptor ring: 17 entries of 8 bytes",
         "completion ring: 17 entries of 8 bytes", "  [0..16] all zero (the last: status descriptor)",
         "QDMA_CTXT_SELC_INT_COAL (sel 0x8), interrupt aggregation ring 0",
         "interrupt aggregation ring 0: 512 entries of 8 bytes", " fields of 3 context(s) read back as the set-up wrote them"}));
}

// The model's lying context reads (PDT_SIM_FAULT): each fails the dump naming the field.
TEST(QdmaCtl, LyingContextReadsFailNamingTheField) {
    const auto stale = run(kH2cMmDump, {"PDT_SIM_FAULT=qdma_stale_context_read"});
    EXPECT_TRUE(test_support::exited_printing(
        stale, 1,
        {"differs: QDMA_CTXT_SELC_DEC_SW_H2C pidx [15:0]: set-up wrote 0x0, read 0xffff",
         "differs: QDMA_CTXT_SELC_DEC_SW_H2C qen [32]: set-up wrote 0x1, read 0x0", "FAIL: "}));
    const auto flipped = run(kH2cMmDump, {"PDT_SIM_FAULT=qdma_context_read_flips"});
    EXPECT_TRUE(test_support::exited_printing(
        flipped, 1, {"differs: QDMA_CTXT_SELC_DEC_SW_H2C rngsz_idx [47:44]: set-up wrote ", "FAIL: 1 of "}));
    EXPECT_EQ(flipped.output.find("PASS"), std::string::npos) << flipped.output;
}

// A fresh simulated IP: no driver gave function 0 queues (FMAP qid_max 0).
TEST(QdmaCtl, AQueueOfAFunctionWithoutQueuesDoesNotExist) {
    const auto context = run({"--sim_design", "U200_qdma_ram", "--command", "context", "--idx", "0", "--dir", "c2h"});
    EXPECT_TRUE(test_support::exited_printing(
        context, 2, {"FMAP qid_base 0, 0 queue(s)", "queue 0 does not exist: the function has no queues"}));
    EXPECT_EQ(context.output.find("QDMA_CTXT_SELC_DEC_SW_C2H (sel"), std::string::npos) << context.output;
    const auto list = run({"--sim_design", "U200_qdma_ram", "--command", "list"});
    EXPECT_TRUE(test_support::exited_printing(list, 0, {"0 enabled queue(s) of 0"}));
}

TEST(QdmaCtl, RegistersByNameAndErrorStatus) {
    const auto regs = run({"--sim_design", "U200_qdma_ram", "--command", "reg_dump"});
    EXPECT_TRUE(test_support::exited_printing(
        regs, 0, {"CONFIG_BLOCK_ID              0x0      0x1fd3", "QDMA_GLBL_RNG_SZ_16", "QDMA_C2H_BUF_SZ_0 ",
                  "QDMA_H2C_MM_CTL              0x1204"}));
    const auto errors = run({"--sim_design", "U200_qdma_ram", "--command", "errors"});
    EXPECT_TRUE(test_support::exited_printing(
        errors, 0, {"QDMA_GLBL_ERR_STAT       0x248  0x00000000 (no error)", "QDMA_GLBL_DSC_ERR_LOG0",
                    "  valid [31] = 0x0: ", "0 error status register(s) with bits set"}));
}

struct Refusal {
    std::vector<std::string> args;
    int exit_code;
    std::string message;
};

TEST(QdmaCtl, RefusalsNameTheirCause) {
    const std::string sim = "U200_qdma_ram";
    const Refusal refusals[] = {
        {{"--sim_design", sim}, 2, "Error: --command is required: list, context, dump, reg_dump or errors"},
        {{"--sim_design", sim, "--command", "q"}, 2, "parse option --command \"q\": expected list, context, dump"},
        {{"--sim_design", sim, "--command", "context", "--dir", "h2c"}, 2, "--command context needs --idx and --dir"},
        {{"--sim_design", sim, "--command", "dump", "--idx", "16", "--dir", "h2c"}, 2,
         "parse option --idx \"16\""},
        {{"--sim_design", sim, "--command", "dump", "--idx", "0", "--dir", "up"}, 2,
         "parse option --dir \"up\": expected h2c or c2h"},
        {{"--sim_design", sim, "--command", "dump", "--idx", "0", "--dir", "h2c", "--mode", "x"}, 2,
         "parse option --mode \"x\": expected mm or st"},
        {{"--sim_design", sim, "--command", "list", "--interrupt_ring"}, 2, "--interrupt_ring is for dump"},
        {{"--sim_design", sim, "--command", "reg_dump", "--idx", "1"}, 2, "--idx and --dir are for context and dump"},
        {{"--sim_design", sim, "--command", "dump", "--idx", "0", "--dir", "h2c", "--ring_entries", "100"}, 2,
         "100 entries is none of QDMA_GLBL_RNG_SZ_1..16"},
        {{"--sim_design", "TEF1001_dma_ddr3", "--command", "errors"}, 1, "not a QDMA design"},
        {{"--sim_design", "open-nic", "--command", "dump", "--idx", "0", "--dir", "h2c"}, 1,
         "QDMA_GLBL2_CHANNEL_MDMA reports no H2C_ENG"},
    };
    for (const Refusal& r : refusals)
        EXPECT_TRUE(test_support::exited_printing(run(r.args), r.exit_code, {r.message})) << r.args.back();
}

}  // namespace
