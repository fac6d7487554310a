# SPDX-License-Identifier: Apache-2.0
"""--vcd / run(vcd=...): a value change dump whose values agree with the run's own counters."""
import subprocess
import sys

import pytest

import cmswitch


def parse_vcd(path, ordered=None):
    """{full name: [(t_ps, value), ...]} from a VCD file (integers and 1-bit values); every change in file
    order is appended to `ordered` as (t_ps, name, value) if given."""
    names, scope, changes, t = {}, [], {}, 0
    ordered = [] if ordered is None else ordered
    with open(path) as f:
        lines = iter(f)
        for line in lines:
            w = line.split()
            if not w:
                continue
            if w[0] == "$scope":
                scope.append(w[2])
            elif w[0] == "$upscope":
                scope.pop()
            elif w[0] == "$var":
                names[w[3]] = ".".join(scope + [w[4]])
            elif w[0] == "$enddefinitions":
                break
        for line in lines:
            line = line.strip()
            if not line:
                continue
            if line[0] == "#":
                t = int(line[1:])
            elif line[0] == "b":
                value, code = line[1:].split()
                changes.setdefault(names[code], []).append((t, int(value, 2)))
                ordered.append((t, names[code], int(value, 2)))
            elif line[0] == "r":
                value, code = line[1:].split()
                changes.setdefault(names[code], []).append((t, float(value)))
                ordered.append((t, names[code], float(value)))
            elif line[0] in "01":
                changes.setdefault(names[line[1:]], []).append((t, int(line[0])))
                ordered.append((t, names[line[1:]], int(line[0])))
    return changes


def value_at(series, t, before=False):
    """The value after every change at t (or just before t)."""
    v = None
    for tt, x in series:
        if tt > t or (before and tt == t):
            break
        v = x
    return v


@pytest.fixture(scope="module")
def pause_run(tmp_path_factory):
    path = tmp_path_factory.mktemp("vcd") / "pause.vcd"
    cfg = cmswitch.IncastConfig(flows=8, pause="pause", buffer_kb=128, duration_s=0.02)
    r = cmswitch.run(cfg, vcd=path)
    ordered = []
    sig = parse_vcd(path, ordered)
    return cfg, r, sig, ordered


def test_pause_state_rises_at_the_xoff_crossing_and_falls_at_xon(pause_run):
    _, r, sig, ordered = pause_run
    xoff, xon = r["pause_xoff_bytes"], r["pause_xon_bytes"]
    rises = falls = 0
    for port in range(1, 9):   # the senders' ingress ports: the level's change, then the state it caused
        level = previous = 0
        for t, name, v in ordered:
            if name == f"switch0.port{port}.ingress0_bytes":
                previous, level = level, v
            elif name == f"switch0.port{port}.xoff0" and t > 0:
                if v == 1:   # XOFF sent: the ingress bytes just crossed the XOFF watermark
                    rises += 1
                    assert level >= xoff > previous, (port, t, previous, level)
                else:        # XON sent: they just fell to the XON watermark
                    falls += 1
                    assert level <= xon < previous, (port, t, previous, level)
    assert rises > 0 and falls > 0
    # the frames the VCD counts are the frames the switch reports: XOFF (and refreshes) + XON per port
    ports = r.tables["ports"]
    for port in range(1, 9):
        assert sig[f"switch0.port{port}.pause_tx"][-1][1] == ports["pause_sent"][port] + ports["xon_sent"][port]
    # and a sender's transmitter is paused after each XOFF reaches it
    assert any(v == 1 for _, v in sig["host1.tx.paused0"])


def test_queue_depth_in_the_vcd_has_the_json_maximum(pause_run):
    _, r, sig, _ = pause_run
    depth = sig["switch0.port0.bytes"]
    assert max(v for _, v in depth) == r["max_queue_bytes"]
    t_max = next(t for t, v in depth if v == r["max_queue_bytes"])
    assert 0 < t_max < r["simulated_s"] * 1e12
    # the priority queues add up to the port's depth at every change
    q0 = sig["switch0.port0.q0_bytes"]
    for t, _ in depth[::50]:
        assert value_at(q0, t) + value_at(sig["switch0.port0.q7_bytes"], t) == value_at(depth, t)


def test_the_dump_changes_no_result(pause_run):
    cfg, r, _, _ = pause_run
    plain = cmswitch.run(cfg)
    def strip(s):
        return {k: v for k, v in s.items() if k != "wall_s" and not k.startswith("vcd_")}
    assert strip(plain.summary) == strip(r.summary)
    assert r["vcd_truncated_at_ms"] == -1 and r["vcd_changes"] > 1000


def test_patterns_select_signals_and_the_cap_cuts_cleanly(tmp_path, capfd):
    cfg = cmswitch.IncastConfig(flows=8, pause="pause", buffer_kb=128, duration_s=0.02)
    path = tmp_path / "few.vcd"
    r = cmswitch.run(cfg, vcd=path, vcd_signals="*.port0.bytes, *xoff0")
    sig = parse_vcd(path)
    assert set(sig) == {"switch0.port0.bytes"} | {f"switch0.port{p}.xoff0" for p in range(9)}
    assert r["vcd_signals"] == 10
    small = tmp_path / "cap.vcd"
    r = cmswitch.run(cfg, vcd=small, vcd_max_mb=0.1)
    assert 0 < r["vcd_truncated_at_ms"] < 20
    assert small.stat().st_size <= 0.1 * 1048576
    assert "size cap of 0.1 MB was reached" in capfd.readouterr().err
    last = max(t for s in parse_vcd(small).values() for t, _ in s)
    assert last < r["vcd_truncated_at_ms"] * 1e9


def test_bad_vcd_settings_name_the_setting(tmp_path):
    cfg = cmswitch.IncastConfig(flows=2, duration_s=0.01)
    with pytest.raises(ValueError, match="vcd_signals"):
        cmswitch.run(cfg, vcd=tmp_path / "a.vcd", vcd_signals=" , ")
    with pytest.raises(ValueError, match="vcd_max_mb"):
        cmswitch.run(cfg, vcd=tmp_path / "a.vcd", vcd_max_mb=0)
    with pytest.raises(ValueError, match="vcd = .*cannot be written"):
        cmswitch.run(cfg, vcd=tmp_path / "no" / "such" / "a.vcd")


def test_command_lines_take_vcd(tmp_path, sim_binary):
    out = tmp_path / "cli.vcd"
    p = subprocess.run([str(sim_binary), "incast", "--flows", "4", "--pause", "pause", "--duration-s", "0.01",
                        "--vcd", str(out), "--vcd-signals=*xoff*"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert set(parse_vcd(out)) == {f"switch0.port{p}.xoff0" for p in range(5)}
    p = subprocess.run([str(sim_binary), "incast", "--vcd-max-mb", "x", "--vcd", str(out)], capture_output=True,
                       text=True)
    assert p.returncode == 2 and "vcd_max_mb" in p.stderr
    py = tmp_path / "py.vcd"
    p = subprocess.run([sys.executable, "-m", "cmswitch", "run", "incast", "--flows", "4", "--duration-s", "0.01", "--vcd", str(py)],
                       capture_output=True, text=True)
    assert p.returncode == 0 and py.stat().st_size > 0, p.stderr


def test_rate_limiters_of_dcqcn_and_qcn_are_in_the_dump(tmp_path):
    # DCQCN: one rate per queue pair, at line rate until its first CNP, then cut and never below MIN_RATE
    path = tmp_path / "rdma.vcd"
    cfg = cmswitch.RdmaIncastConfig(senders=2, qps=2, link_gbps=40, duration_s=0.002, cm="dcqcn")
    r = cmswitch.run(cfg, vcd=path, vcd_signals="*rate_mbps")
    sig = parse_vcd(path)
    assert len(sig) == 4 and r["vcd_signals"] == 4
    for name, series in sig.items():
        values = [v for _, v in series]
        assert values[0] == 40000.0, name   # line rate, Mbps
        assert min(values) < 40000.0 and min(values) >= 100.0, name   # cut by CNPs, not below MIN_RATE
    # QCN in the baseline: the hot-spot flow's limiter is cut towards the hot spot's 0.5 Gb/s
    path = tmp_path / "qcn.vcd"
    cmswitch.run(cmswitch.BaselineConfig(cm="tcp-qcn-pause", duration_s=0.05), vcd=path, vcd_signals="*rate_mbps")
    sig = parse_vcd(path)
    assert sig and min(v for s in sig.values() for _, v in s) < 1000.0


def test_patterns_that_match_nothing_are_refused_and_leave_no_file(tmp_path):
    cfg = cmswitch.IncastConfig(flows=2, duration_s=0.01)
    path = tmp_path / "a.vcd"
    with pytest.raises(ValueError, match="vcd_signals = 'nosuch\\*': matches none of the run's \\d+ signals "
                                         "\\(their names are like "):
        cmswitch.run(cfg, vcd=path, vcd_signals="nosuch*")
    assert not path.exists()   # (an empty dump would look like a run where nothing moved)
    # a run that fails after the check (the budget refuses it) leaves no empty file either
    with pytest.raises(ValueError):
        cmswitch.run(cfg.replace(duration_s=1e6, sample_us=0.1, series=True), vcd=path, memory_budget_mb=1)
    assert not path.exists()
    kept = tmp_path / "kept.vcd"
    kept.write_text("someone's file")
    with pytest.raises(ValueError, match="matches none"):
        cmswitch.run(cfg, vcd=kept, vcd_signals="nosuch*")
    assert kept.read_text() == "someone's file"   # a file that was there is left as it was
