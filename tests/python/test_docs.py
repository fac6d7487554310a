# SPDX-License-Identifier: Apache-2.0
"""What a newcomer reads holds: the README is short and its examples run as written, docs/cli.md is what the
parameter tables give (a flag added without regenerating it fails here), the public names are the papers' and the
scenarios' own, and a renamed scenario's old name still works, with a warning."""
import argparse
import os
import re
import shlex
import subprocess
import warnings

import pytest

import cmswitch
from cmswitch import cli, cli_doc
from conftest import ROOT

MAX_README_LINES = 150
MAX_LINE = 160


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as fh:
        return fh.read()


def _blocks(text, lang):
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def _prose_lines(text):
    """The lines of a markdown text outside tables and code blocks."""
    out, code = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            code = not code
            continue
        if not code and not line.lstrip().startswith("|"):
            out.append((n, line))
    return out


def _tracked(pattern):
    """Tracked files matching a git pathspec (the clean clone CI runs is a git checkout)."""
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--", pattern], capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.stdout.decode().split("\0") if p]


def test_the_readme_is_short_and_no_doc_line_runs_on():
    readme = _read("README.md")
    assert len(readme.splitlines()) <= MAX_README_LINES
    docs = ["README.md"] + [os.path.join("docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs")))
                            if f.endswith(".md")]
    long = [f"{d}:{n} ({len(line)})" for d in docs for n, line in _prose_lines(_read(d)) if len(line) > MAX_LINE]
    assert not long, f"lines over {MAX_LINE} characters outside tables: {long}"


def test_the_quick_start_is_the_two_commands_and_ci_runs_the_second():
    block = _blocks(_read("README.md"), "sh")[0]
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["bash scripts/main.sh", "bash scripts/test.sh"]
    assert "exec bash scripts/test.sh" in _read(".ci", "run")


def test_the_readme_python_example_runs_as_written(tmp_path, monkeypatch):
    (code,) = _blocks(_read("README.md"), "python")
    monkeypatch.chdir(tmp_path)   # its store is created where it runs
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    res, df = namespace["res"], namespace["df"]
    assert res.summary["goodput_mbps"] > 0 and len(df) == 3 * 2 * 2
    assert (tmp_path / "incast.sqlite").exists()
    # the same sweep again comes from the store: nothing is computed
    again = cmswitch.sweep(namespace["cfg"], {"flows": [4, 16, 64], "buffer_kb": [32, 128], "seed": [1, 2]},
                           store="incast.sqlite")
    assert again.attrs["computed"] == 0


def test_the_readme_command_line_example_runs_as_written(capsys):
    (block,) = _blocks(_read("README.md"), "sh")[1:]
    commands = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert commands and all(c[0] == "cmswitch" for c in commands)
    for c in commands:
        assert cli.main(c[1:]) == 0, c
    out = capsys.readouterr().out
    assert '"goodput_mbps"' in out and "vegas-incast:" in out


def test_the_readme_lists_every_scenario_once_in_the_registry_order():
    section = _read("README.md").split("## Scenarios\n", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^- `([a-z0-9-]+)`:", section, re.M)
    assert listed == list(cmswitch.CONFIG_CLASSES)


def test_every_scenario_config_class_is_exported():
    for name, cls in cmswitch.CONFIG_CLASSES.items():
        assert cls.__name__ in cmswitch.__all__, name
        assert getattr(cmswitch, cls.__name__) is cls


def test_the_cli_reference_is_current():
    assert _read("docs", "cli.md") == cli_doc.cli_reference(), \
        "docs/cli.md is stale: run scripts/gen_cli_doc.py"


def test_the_cli_reference_follows_a_new_flag(monkeypatch):
    # the check above can fail: a flag added to the command's parser changes the reference
    before = cli_doc.cli_reference()
    build = cli.build_parser

    def with_a_new_flag():
        parser = build()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub.choices["run"].add_argument("--brand-new-flag", help="a flag nobody documented")
        return parser

    monkeypatch.setattr(cli, "build_parser", with_a_new_flag)
    after = cli_doc.cli_reference()
    assert after != before and "`--brand-new-flag`" in after and "a flag nobody documented" in after


def test_every_scenario_flag_is_in_the_cli_reference():
    text = _read("docs", "cli.md")
    for name in cmswitch.CONFIG_CLASSES:
        section = text.split(f"### `{name}`\n", 1)[1].split("\n### ", 1)[0]
        for p in cmswitch.config.param_specs(name).values():
            assert f"| `--{p['name'].replace('_', '-')}` |" in section, (name, p["name"])


def test_public_names_are_the_papers_not_file_numbers():
    pattern = re.compile(r"seed 00[0-4]|paper 00[0-4]|testbed-001", re.I)
    # the papers' page, and the former scenario name: its alias, its tests and the release note of the rename
    allowed = {"docs/papers.md", "CHANGELOG.md", "platform/scenarios/registry.cpp", "tests/test_hardening.cpp",
               "tests/python/test_docs.py"}
    hits = []
    for path in _tracked("*"):
        if path in allowed or not os.path.isfile(os.path.join(ROOT, path)):
            continue
        try:
            text = _read(path)
        except UnicodeDecodeError:
            continue
        hits += [f"{path}:{n}" for n, line in enumerate(text.splitlines(), 1) if pattern.search(line)]
    assert not hits, hits


def test_the_docs_describe_the_product_not_the_work_on_it():
    for path in _tracked("docs/*") + _tracked("bench/*"):
        if os.path.isfile(os.path.join(ROOT, path)) and path.endswith((".md", ".txt")):
            assert not re.search(r"\bsession", _read(path), re.I), path


def test_a_renamed_scenario_still_works_with_a_warning(capsys):
    with pytest.warns(DeprecationWarning, match="'testbed-001' is now 'sctp-incast'"):
        assert cmswitch.config_class("testbed-001") is cmswitch.SctpIncastConfig
    with pytest.warns(DeprecationWarning, match="'Testbed001Config' is now 'SctpIncastConfig'"):
        assert cmswitch.Testbed001Config is cmswitch.SctpIncastConfig
    assert cli.main(["run", "testbed-001", "--duration-s", "0.05", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "scenario 'testbed-001' is now 'sctp-incast'" in captured.err
    assert '"scenario": "sctp-incast"' in captured.out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cmswitch.config_class("sctp-incast") is cmswitch.SctpIncastConfig
    with pytest.raises(AttributeError):
        cmswitch.NoSuchConfig   # noqa: B018


def test_the_c_plus_plus_front_end_takes_the_old_name_with_a_warning(sim_binary):
    out = subprocess.run([sim_binary, "testbed-001", "--duration-s", "0.05"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "scenario 'testbed-001' is now 'sctp-incast'" in out.stderr
    assert '"scenario": "sctp-incast"' in out.stdout
