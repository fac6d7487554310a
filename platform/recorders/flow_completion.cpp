// SPDX-License-Identifier: Apache-2.0
#include "platform/recorders/flow_completion.h"

#include "platform/network.h"
#include "platform/statistics.h"

#include <algorithm>
#include <string>

namespace cmswitch {

namespace {
// Flow-size buckets (upper bounds, bytes): the small/medium/large split of DCTCP and HPCC, in the units the
// labels say (KB = 1024 bytes, MB = 1024 KB).
constexpr size_t num_buckets = 5;
const double bucket_upper[num_buckets] = {10 * 1024.0, 100 * 1024.0, 1024 * 1024.0, 10 * 1024 * 1024.0, 1e300};
const char* bucket_name[num_buckets] = {"<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">10MB"};

struct incast_times {
    std::vector<uint64_t> start, end;   // end UINT64_MAX: a flow of it did not finish
    std::vector<uint8_t> seen;   // an incast some of whose flows were added (one left out by a warm-up is not)
    void add(const flow_workload::flow_record& f) {
        const size_t k = static_cast<size_t>(f.incast);
        if (end.size() <= k) {
            end.resize(k + 1, 0);
            start.resize(k + 1, UINT64_MAX);
            seen.resize(k + 1, 0);
        }
        seen[k] = 1;
        start[k] = std::min(start[k], f.start_ps);
        end[k] = (f.end_ps == 0 || end[k] == UINT64_MAX) ? UINT64_MAX : std::max(end[k], f.end_ps);
    }
    void report(result& r) const {
        std::vector<double> done;
        int64_t n = 0;
        for (size_t k = 0; k < end.size(); ++k) {
            n += seen[k];
            if (seen[k] && end[k] != UINT64_MAX && end[k] != 0)
                done.push_back(static_cast<double>(end[k] - start[k]) * 1e-9);
        }
        r.set("incasts", n);
        r.set("incasts_completed", static_cast<int64_t>(done.size()));
        r.set("incast_time_p50_ms", percentile(done, 0.5));
        r.set("incast_time_p99_ms", percentile(done, 0.99));
    }
};
}   // namespace

std::vector<double> flow_path_model::rates(int src, int dst) const {
    const int n = links(src, dst);
    std::vector<double> r(static_cast<size_t>(n), static_cast<double>(fabric_rate_bps));
    r.front() = static_cast<double>(host_rate_bps[static_cast<size_t>(src)]);
    r.back() = static_cast<double>(host_rate_bps[static_cast<size_t>(dst)]);
    return r;
}

double flow_path_model::ideal_ps(int src, int dst, uint64_t bytes) const {
    const uint64_t segs = (bytes + mss - 1) / mss;
    const uint64_t wire = bytes + segs * header_bytes;
    const int n = links(src, dst);
    const uint64_t first = std::min<uint64_t>(wire, mss + header_bytes);
    if (pipeline_ps || cut_through_bytes) {
        // the first frame through every hop (its whole length, or its first bytes where a switch cuts through),
        // the rest of the flow behind it at the slowest link, propagation and every switch's pipeline
        const std::vector<double> r = rates(src, dst);
        double t = 0, slowest = r[0];
        for (size_t k = 0; k < r.size(); ++k) {
            const bool cut = cut_through_bytes && k > 0 && r[k] >= r[k - 1];
            t += static_cast<double>(cut ? std::min<uint64_t>(first, cut_through_bytes) : first) * 8e12 / r[k];
            slowest = std::min(slowest, r[k]);
        }
        t += static_cast<double>(wire - first) * 8e12 / slowest;
        return t + static_cast<double>(n) * static_cast<double>(link_delay_ps) +
               static_cast<double>(n - 1) * static_cast<double>(pipeline_ps) + host_ps();
    }
    const uint64_t a = host_rate_bps[static_cast<size_t>(src)], b = host_rate_bps[static_cast<size_t>(dst)];
    const double slow_rate = static_cast<double>(std::min(a, b));
    const double fast_rate = static_cast<double>(std::max(a, b));
    double t = static_cast<double>(wire) * 8e12 / slow_rate;
    t += static_cast<double>(first) * 8e12 / fast_rate;   // the other host link
    t += (n - 2) * static_cast<double>(first) * 8e12 / static_cast<double>(fabric_rate_bps);
    return t + static_cast<double>(n) * static_cast<double>(link_delay_ps) + host_ps();
}

double flow_path_model::frames_ideal_ps(int src, int dst, uint64_t frames, uint64_t wire_bytes) const {
    const int n = links(src, dst);
    if (pipeline_ps || cut_through_bytes) {
        const std::vector<double> r = rates(src, dst);
        double t = 0;
        for (size_t k = 0; k < r.size(); ++k) {
            const bool cut = cut_through_bytes && k > 0 && r[k] >= r[k - 1];
            const double bytes = cut ? static_cast<double>(std::min<uint64_t>(wire_bytes, frames * cut_through_bytes))
                                     : static_cast<double>(wire_bytes);
            t += bytes * 8e12 / r[k];
        }
        return t + static_cast<double>(frames) * (static_cast<double>(n) * static_cast<double>(link_delay_ps) +
                                                  static_cast<double>(n - 1) * static_cast<double>(pipeline_ps) +
                                                  2 * static_cast<double>(host_latency_ps));
    }
    const double a = static_cast<double>(host_rate_bps[static_cast<size_t>(src)]);
    const double b = static_cast<double>(host_rate_bps[static_cast<size_t>(dst)]);
    const double per_bit = 1e12 / a + 1e12 / b + (n - 2) * 1e12 / static_cast<double>(fabric_rate_bps);
    return static_cast<double>(wire_bytes) * 8 * per_bit +
           static_cast<double>(frames) *
               (static_cast<double>(n) * static_cast<double>(link_delay_ps) + 2 * static_cast<double>(host_latency_ps));
}

namespace {
// Per size bucket: the completed flows' FCT (ms), slowdown, longest host wait and mean network queueing (us), and
// how many of them waited out a retransmission timeout.
struct size_buckets {
    std::vector<double> fct[num_buckets], slow[num_buckets], wait[num_buckets], queue[num_buckets];
    uint64_t timed_out[num_buckets] = {};
};

double timed_out_share(const size_buckets& sb, size_t b) {
    return sb.fct[b].empty() ? 0.0 : static_cast<double>(sb.timed_out[b]) / static_cast<double>(sb.fct[b].size());
}

// Table fct_by_size and the small flows' summary keys (host wait only where the hosts account below TCP).
void report_buckets(result& r, const size_buckets& sb, bool accounted) {
    table& bt = r.add_table("fct_by_size");
    for (size_t b = 0; b < num_buckets; ++b) {
        bt.column("bucket").push_back(static_cast<double>(b));
        bt.column("upper_bytes").push_back(b + 1 < num_buckets ? bucket_upper[b] : 0);
        bt.column("flows").push_back(static_cast<double>(sb.fct[b].size()));
        bt.column("fct_p50_ms").push_back(percentile(sb.fct[b], 0.5));
        bt.column("fct_p99_ms").push_back(percentile(sb.fct[b], 0.99));
        bt.column("slowdown_p50").push_back(percentile(sb.slow[b], 0.5));
        bt.column("slowdown_p95").push_back(percentile(sb.slow[b], 0.95));
        bt.column("slowdown_p99").push_back(percentile(sb.slow[b], 0.99));
        bt.column("net_queue_p50_us").push_back(percentile(sb.queue[b], 0.5));
        bt.column("net_queue_p99_us").push_back(percentile(sb.queue[b], 0.99));
        bt.column("timed_out_share").push_back(timed_out_share(sb, b));
        if (accounted) {
            bt.column("host_wait_p50_us").push_back(percentile(sb.wait[b], 0.5));
            bt.column("host_wait_p99_us").push_back(percentile(sb.wait[b], 0.99));
        }
    }
    // hosts that do not account below TCP hold no frame there: their wait is 0
    r.set("host_wait_p50_small_us", accounted ? percentile(sb.wait[0], 0.5) : 0.0);
    r.set("host_wait_p99_small_us", accounted ? percentile(sb.wait[0], 0.99) : 0.0);
    r.set("net_queue_p99_small_us", percentile(sb.queue[0], 0.99));
    r.set("timed_out_share_small", timed_out_share(sb, 0));
    r.set("slowdown_p99_small", percentile(sb.slow[0], 0.99));   // <= 10 KB
    r.set("slowdown_p99_large", percentile(sb.slow[3], 0.99));   // 1-10 MB
    std::string names;
    for (size_t b = 0; b < num_buckets; ++b)
        names += (b ? ", " : "") + std::string(bucket_name[b]);
    r.set("fct_buckets", names);
}
}   // namespace

uint64_t flow_completion_recorder::report(result& r) const {
    size_buckets sb;
    auto& fct = sb.fct;
    auto& slow = sb.slow;
    auto& wait = sb.wait;
    auto& queue = sb.queue;
    auto& timed_out = sb.timed_out;
    std::vector<double> all_slow;
    bool accounted = false;   // hosts count what waits below TCP
    for (int h = 0; h < m_net.num_hosts(); ++h)
        accounted = accounted || m_net.nic(h).shaped();
    incast_times incasts;
    uint64_t started = 0, completed = 0, bytes_done = 0;
    table* ft = m_flow_table ? &r.add_table("flows") : nullptr;
    uint64_t in_warmup = 0;
    for (const auto& f : m_workload.flows()) {
        if (f.incast == flow_workload::bulk)   // no completion: the scenario reports their goodput
            continue;
        if (f.start_ps < m_warmup_ps) {
            ++in_warmup;
            continue;
        }
        if (f.incast >= 0) {
            incasts.add(f);
            continue;
        }
        ++started;
        if (f.end_ps == 0)
            continue;
        ++completed;
        bytes_done += f.bytes;
        const double t = static_cast<double>(f.end_ps - f.start_ps);
        const double s = t / m_paths.ideal_ps(f.src, f.dst, f.bytes);
        size_t b = 0;
        while (static_cast<double>(f.bytes) > bucket_upper[b])
            ++b;
        fct[b].push_back(t * 1e-9);
        slow[b].push_back(s);
        all_slow.push_back(s);
        double wait_max_us = 0, wait_mean_us = 0;
        if (accounted) {
            if (const auto hs = m_net.nic(f.src).qdisc().socket_stats(f.flow)) {
                wait_max_us = static_cast<double>(hs->wait_max_ps) * 1e-6;
                if (hs->data_frames)
                    wait_mean_us = static_cast<double>(hs->wait_sum_ps) / static_cast<double>(hs->data_frames) * 1e-6;
            }
            wait[b].push_back(wait_max_us);
        }
        const tcp_stats& ts = m_workload.stats()[f.flow];
        timed_out[b] += ts.timeouts > 0 ? 1 : 0;
        double queue_mean_us = 0, excess_max_us = 0, rx_wait_mean_us = 0;
        if (ts.rx_data_frames) {
            const double n = static_cast<double>(ts.rx_data_frames);
            const double ideal = m_paths.frames_ideal_ps(f.src, f.dst, ts.rx_data_frames, ts.rx_data_wire_bytes);
            rx_wait_mean_us = static_cast<double>(ts.rx_ring_wait_sum_ps) / n * 1e-6;
            queue_mean_us = std::max(0.0, (static_cast<double>(ts.rx_delay_sum_ps) - ideal) / n * 1e-6 - wait_mean_us -
                                              rx_wait_mean_us);
            const uint64_t full = std::min<uint64_t>(ts.rx_data_wire_bytes, m_paths.mss + m_paths.header_bytes);
            excess_max_us = std::max(
                0.0, (static_cast<double>(ts.rx_delay_max_ps) - m_paths.frames_ideal_ps(f.src, f.dst, 1, full)) * 1e-6);
        }
        queue[b].push_back(queue_mean_us);
        if (ft) {
            ft->column("src").push_back(f.src);
            ft->column("dst").push_back(f.dst);
            ft->column("start_ms").push_back(static_cast<double>(f.start_ps) * 1e-9);
            ft->column("size_bytes").push_back(static_cast<double>(f.bytes));
            ft->column("fct_us").push_back(t * 1e-6);
            ft->column("slowdown").push_back(s);
            ft->column("priority").push_back(m_workload.prio_of(f));
            ft->column("net_queue_mean_us").push_back(queue_mean_us);
            ft->column("delay_excess_max_us").push_back(excess_max_us);
            ft->column("timeouts").push_back(static_cast<double>(ts.timeouts));
            ft->column("fast_retransmits").push_back(static_cast<double>(ts.fast_retransmits));
            ft->column("retransmitted_bytes").push_back(static_cast<double>(ts.retransmitted_bytes));
            ft->column("retransmitted_bytes_spurious").push_back(static_cast<double>(ts.duplicate_bytes_received));
            if (accounted) {
                ft->column("host_wait_max_us").push_back(wait_max_us);
                ft->column("host_wait_mean_us").push_back(wait_mean_us);
            }
            if (m_paths.rx_coalesce_ps)
                ft->column("rx_ring_wait_mean_us").push_back(rx_wait_mean_us);
        }
    }
    r.set("flows_in_warmup", static_cast<int64_t>(in_warmup));   // left out: started before the warm-up ended
    r.set("flows_started", static_cast<int64_t>(started));
    r.set("flows_completed", static_cast<int64_t>(completed));
    r.set("slowdown_p50", percentile(all_slow, 0.5));
    r.set("slowdown_p99", percentile(all_slow, 0.99));
    report_buckets(r, sb, accounted);
    incasts.report(r);
    return bytes_done;
}

}   // namespace cmswitch
