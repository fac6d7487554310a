// SPDX-License-Identifier: Apache-2.0
// A scheme added without editing the model: the demonstration "every-nth" marking (tests/scheme_plugin/) is
// registered at run time and then offered by the incast scenario, with its parameter, in its help, its checks and
// its report, like the built-in schemes.
#include "config/errors.h"
#include "model/cm/scheme.h"
#include "platform/scenario.h"
#include "scheme_plugin/every_nth_marking.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace cmswitch;

namespace {
void ensure_registered() {
    static const bool once = (demo::register_every_nth_marking(), true);
    (void)once;
}

result run_incast(const std::vector<std::string>& args) {
    ensure_registered();
    auto sc = make_scenario("incast");
    sc->params().parse_args(args);
    return sc->run();
}

const param_table::param* find_param(const param_table& t, const std::string& name) {
    for (const auto& p : t.params())
        if (p.name == name)
            return &p;
    return nullptr;
}
}   // namespace

TEST(SchemePlugin, RegisteredSchemeIsOfferedWithItsParameter) {
    ensure_registered();
    auto sc = make_scenario("incast");
    const param_table::param* marking = find_param(sc->params(), "marking");
    ASSERT_NE(marking, nullptr);
    EXPECT_NE(std::find(marking->choices.begin(), marking->choices.end(), "every-nth"), marking->choices.end());
    EXPECT_NE(marking->help.find("mark every Nth ECN-capable frame"), std::string::npos) << marking->help;
    const param_table::param* n = find_param(sc->params(), "nth_mark_n");
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->group, "every-nth");
    EXPECT_EQ(n->unit, "frames");
    EXPECT_EQ(n->default_text, "10");
    // the scenario's own parameters and the built-in schemes' are unchanged
    EXPECT_EQ(find_param(sc->params(), "ecn_k_kb")->group, "step");
    EXPECT_EQ(find_param(sc->params(), "flows")->group, "");
    // its range is checked like any other
    EXPECT_THROW(sc->params().parse_args({"--marking", "every-nth", "--nth-mark-n", "0"}), config_error);
}

TEST(SchemePlugin, SingleFlowIsMarkedExactlyEveryNthFrame) {
    // One DCTCP flow at the link's own rate: its frames never wait at the switch, so every data frame admitted
    // to the client's port has started transmission by the end. ACKs are not ECN-capable. Marks at that port =
    // floor(data frames / 7).
    const result r = run_incast({"--flows", "1", "--transport", "dctcp", "--marking", "every-nth", "--nth-mark-n", "7",
                                 "--duration-s", "0.05", "--buffer-kb", "512"});
    const double frames = r.number("data_frames_to_client");
    ASSERT_GT(frames, 1000);
    EXPECT_EQ(r.number("every_nth_ect_frames"), frames);
    EXPECT_EQ(r.number("marks"), std::floor(frames / 7));
    EXPECT_EQ(r.number("drops"), 0);
    // DCTCP saw the marks: with one frame in 7 marked its alpha tends to 1/7 and it cuts its window
    EXPECT_GT(r.number("ecn_reductions"), 0);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(SchemePlugin, IncastMarksEveryNthFrameOfThePort) {
    // Eight flows queue at the client's port: the frames admitted there are those transmitted plus at most a
    // full queue at the end (max_queue_bytes / 1500 frames).
    const result r = run_incast({"--flows", "8", "--transport", "dctcp", "--marking", "every-nth", "--nth-mark-n", "3",
                                 "--duration-s", "0.05", "--buffer-kb", "512"});
    const double tx = r.number("data_frames_to_client");
    const double queued_max = std::floor(r.number("max_queue_bytes") / 1500);
    EXPECT_GE(r.number("marks"), std::floor(tx / 3));
    EXPECT_LE(r.number("marks"), std::floor((tx + queued_max) / 3));
    EXPECT_GE(r.number("every_nth_ect_frames"), tx);
    EXPECT_LE(r.number("every_nth_ect_frames"), tx + queued_max);
    EXPECT_TRUE(std::get<bool>(*r.get("conservation_ok")));
}

TEST(SchemePlugin, FramesThatAreNotEcnCapableAreNeverMarked) {
    const result r = run_incast({"--flows", "4", "--transport", "newreno", "--marking", "every-nth", "--nth-mark-n",
                                 "1", "--duration-s", "0.02"});
    EXPECT_EQ(r.number("marks"), 0);
    EXPECT_EQ(r.number("every_nth_ect_frames"), 0);
    EXPECT_GT(r.number("data_frames_to_client"), 0);
}

TEST(SchemePlugin, TransportThatNeedsMarkingNamesThePlugInAmongTheChoices) {
    try {
        run_incast({"--transport", "dctcp", "--duration-s", "0.01"});
        FAIL() << "dctcp without marking was accepted";
    } catch (const config_error& e) {
        EXPECT_NE(std::string(e.what()).find("needs marking = step, red, dcqcn, dbl or every-nth"), std::string::npos)
            << e.what();
    }
}

TEST(SchemePlugin, SecondRegistrationOfTheSameNameIsRefused) {
    ensure_registered();
    try {
        demo::register_every_nth_marking();
        FAIL() << "a second every-nth was accepted";
    } catch (const model_error& e) {
        EXPECT_NE(std::string(e.what()).find("'every-nth' is already registered for marking"), std::string::npos)
            << e.what();
    }
}
