// SPDX-License-Identifier: Apache-2.0
// Linked into every GoogleTest executable: a SystemC warning (or an error or fatal report, whatever the model
// does with it afterwards) during a test fails that test, naming the message. The model keeps SystemC's
// warnings off stdout (platform/sim_context.cpp), which would otherwise hide them from the suite.
#include <gtest/gtest.h>
#include <systemc>

namespace {

void fail_test_on_report(const sc_core::sc_report& rep, const sc_core::sc_actions& actions) {
    if (rep.get_severity() >= sc_core::SC_WARNING && testing::UnitTest::GetInstance()->current_test_info() != nullptr)
        ADD_FAILURE() << "SystemC " << (rep.get_severity() == sc_core::SC_WARNING ? "warning" : "error") << " "
                      << rep.get_msg_type() << ": " << rep.get_msg();
    sc_core::sc_report_handler::default_handler(rep, actions);
}

const bool installed = [] {
    sc_core::sc_report_handler::set_handler(&fail_test_on_report);
    return true;
}();

}   // namespace
