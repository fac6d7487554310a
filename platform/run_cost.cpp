// SPDX-License-Identifier: Apache-2.0
#include "platform/run_cost.h"

#include "config/errors.h"
#include "config/params.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace cmswitch {

namespace {
std::string mb_text(double bytes) {
    char buf[64];
    const double mb = bytes / (1024.0 * 1024.0);
    if (mb < 1e6)
        std::snprintf(buf, sizeof buf, "%.0f MB", std::ceil(mb));
    else
        std::snprintf(buf, sizeof buf, "%.2g MB", mb);
    return buf;
}

std::string count_text(double n) {
    char buf[64];
    if (n < 1e6)
        std::snprintf(buf, sizeof buf, "%.0f", n);
    else
        std::snprintf(buf, sizeof buf, "%.3g", n);
    return buf;
}
}   // namespace

void run_cost::add(const std::string& field, double bytes, const std::string& what, const std::string& advice) {
    if (bytes > 0)
        m_items.push_back({field, bytes, what, advice});
}

void run_cost::add_network(const std::string& field, double hosts, double switch_ports, double switches) {
    const double routes = switches * hosts;
    add(field, hosts * host_bytes + switch_ports * switch_port_bytes + routes * route_bytes,
        "the network (" + count_text(hosts) + " hosts, " + count_text(switches) + " switches with " +
            count_text(switch_ports) + " ports, " + count_text(routes) + " forwarding entries)",
        "a smaller network");
}

void run_cost::add_buffered_frames(const std::string& field, double buffer_bytes, double offered_bytes) {
    const double frames = std::min(0.5 * buffer_bytes, 0.25 * offered_bytes) / 1500;
    add(field, frames * buffered_frame_bytes,
        count_text(frames) + " frames held in the switch buffers at the peak (of " + mb_text(buffer_bytes) +
            " of buffer in the network)",
        "shorten duration_s, lower load or give smaller buffers");
}

void run_cost::add_connections(const std::string& field, double count, const std::string& what) {
    add(field, count * connection_bytes, count_text(count) + " " + what, "fewer of them");
}

void run_cost::add_series(const std::string& field, const std::string& value, double period_s, double duration_s,
                          double columns, const std::string& what, bool exported) {
    if (!(period_s > 0))
        return;
    const double samples = std::floor(duration_s / period_s) + 1;
    add(field, samples * columns * 8 * (exported ? copies : 1),
        count_text(samples) + " samples of " + count_text(columns) + " " + what + " (" + field + " = " + value +
            " over duration_s = " + format_number(duration_s) + " s)",
        "raise " + field + " or shorten duration_s");
}

void run_cost::add_records(const std::string& field, double count, double bytes_each, const std::string& what,
                           const std::string& advice) {
    add(field, count * bytes_each, count_text(count) + " " + what, advice);
}

double run_cost::bytes() const {
    double sum = 0;
    for (const item& i : m_items)
        sum += i.bytes;
    return sum;
}

void run_cost::check(double budget_bytes) const {
    const double total = bytes();
    if (total <= budget_bytes || m_items.empty())
        return;
    const item* big = &m_items.front();
    for (const item& i : m_items)
        if (i.bytes > big->bytes)
            big = &i;
    std::string msg = big->field + ": " + big->what + " would need about " + mb_text(big->bytes);
    if (total > big->bytes * 1.01)
        msg += " (the whole run about " + mb_text(total) + ")";
    msg += ", over the run's memory budget of " + mb_text(budget_bytes) + " (memory_budget_mb): " + big->advice +
           ", or raise the budget";
    throw config_error(msg);
}

double default_memory_budget_bytes() {
    if (const char* env = std::getenv("CMSWITCH_MEMORY_BUDGET_MB")) {
        char* end = nullptr;
        const double mb = std::strtod(env, &end);
        if (end == env || *end != '\0' || !(mb > 0) || !std::isfinite(mb))
            throw config_error(std::string("CMSWITCH_MEMORY_BUDGET_MB = '") + env +
                               "': must be a number of MB > 0 (the memory a run may plan for)");
        return mb * 1024 * 1024;
    }
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0)
        return 4.0 * 1024 * 1024 * 1024;   // not known: 4 GB
    return static_cast<double>(pages) * static_cast<double>(page) / 2;
}

}   // namespace cmswitch
