// SPDX-License-Identifier: Apache-2.0
// libsystemc references sc_main; our programs run simulations through sim_context and never call it.
#include <systemc>

extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) {
    return 0;
}
